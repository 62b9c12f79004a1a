import { randomBytes } from "node:crypto";
import { type GotrueDatabase, quote } from "./gotrue-database.ts";
import { gotrueArgon2, gotrueBcrypt } from "./gotrue-formats.ts";
import { NIL_UUID } from "./gotrue-rows.ts";

/** The password of every user seedManyUsers writes. */
export const MANY_USERS_PASSWORD = "many users correct horse";

/**
 * `count` confirmed email users with an email identity each, in one statement (generate_series), for the
 * 100,000-user bench: every tenth holds an argon2id hash, the others a bcrypt one, of MANY_USERS_PASSWORD.
 * Emails are `bench-<random>-<n>@example.com`, created a second apart.
 */
export async function seedManyUsers(db: GotrueDatabase, count: number): Promise<void> {
  const [bcrypt, argon2] = await Promise.all([gotrueBcrypt(MANY_USERS_PASSWORD), gotrueArgon2(MANY_USERS_PASSWORD)]);
  const prefix = `bench-${randomBytes(3).toString("hex")}-`;
  const s = quote(db.schema);
  await db.client.query(
    `with created as (
       insert into ${s}.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
         confirmation_token, recovery_token, email_change_token_new, email_change, email_change_token_current,
         phone_change, phone_change_token, reauthentication_token, raw_app_meta_data, raw_user_meta_data,
         created_at, updated_at, last_sign_in_at)
       select $1::uuid, gen_random_uuid(), 'authenticated', 'authenticated', $2 || n || '@example.com',
         case when n % 10 = 0 then $4 else $3 end, at, '', '', '', '', '', '', '', '',
         '{"provider":"email","providers":["email"]}', '{}', at, at, at
       from generate_series(1, $5::int) as n, lateral (select now() - n * interval '1 second' as at) as t
       returning id, email, created_at
     )
     insert into ${s}.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     select id::text, id, jsonb_build_object('sub', id::text, 'email', email, 'email_verified', true,
       'phone_verified', false), 'email', created_at, created_at, created_at
     from created`,
    [NIL_UUID, prefix, bcrypt, argon2, count],
  );
}
