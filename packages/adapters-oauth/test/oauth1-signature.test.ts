import { describe, expect, it } from "vitest";
import {
  authorizationHeader,
  baseStringUri,
  hmacSha1Signature,
  normalizedParameters,
  percentEncode,
  signatureBaseString,
  signRequest,
} from "../src/oauth1/signature.ts";

/** RFC 5849 §3.1's request: POST http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b, body `c2&a3=2+q`. */
const RFC_REQUEST_URL = "http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b";
const RFC_BODY = [...new URLSearchParams("c2&a3=2+q")];
const RFC_PROTOCOL = [
  ["oauth_consumer_key", "9djdj82h48djs9d2"],
  ["oauth_token", "kkk9d7dh3k39sjv7"],
  ["oauth_signature_method", "HMAC-SHA1"],
  ["oauth_timestamp", "137131201"],
  ["oauth_nonce", "7d8f3e4a"],
] as const;

describe("OAuth 1.0a signing (RFC 5849)", () => {
  it("percent-encodes everything but RFC 3986's unreserved characters, UTF-8 first, in upper-case hex", () => {
    expect(percentEncode("AZaz09-._~")).toBe("AZaz09-._~");
    expect(percentEncode("Hello Ladies + Gentlemen, a signed OAuth request!")).toBe(
      "Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21",
    );
    expect(percentEncode("*'()=&/:@")).toBe("%2A%27%28%29%3D%26%2F%3A%40");
    expect(percentEncode("☃é")).toBe("%E2%98%83%C3%A9");
  });

  it("writes the base string URI of RFC 5849 §3.4.1.2's examples", () => {
    expect(baseStringUri("HTTP://EXAMPLE.COM:80/r%20v/X?id=123")).toBe("http://example.com/r%20v/X");
    expect(baseStringUri("https://www.example.net:8080/?q=1")).toBe("https://www.example.net:8080/");
    expect(baseStringUri("https://api.twitter.com:443/oauth/request_token#x")).toBe(
      "https://api.twitter.com/oauth/request_token",
    );
  });

  it("normalizes RFC 5849 §3.4.1.3.2's parameters: query, body and protocol, sorted by name then value", () => {
    const query = [...new URL(RFC_REQUEST_URL).searchParams];
    expect(normalizedParameters([...query, ...RFC_BODY, ...RFC_PROTOCOL])).toBe(
      "a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9djdj82h48djs9d2&oauth_nonce=7d8f3e4a&" +
        "oauth_signature_method=HMAC-SHA1&oauth_timestamp=137131201&oauth_token=kkk9d7dh3k39sjv7",
    );
  });

  it("builds RFC 5849 §3.4.1.1's signature base string", () => {
    expect(signatureBaseString("post", RFC_REQUEST_URL, [...RFC_BODY, ...RFC_PROTOCOL])).toBe(
      "POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26" +
        "c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26" +
        "oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7",
    );
  });

  it("signs RFC 5849 §1.2's temporary-credential request (a callback, no token secret)", () => {
    const baseString = signatureBaseString("POST", "https://photos.example.net/initiate", [
      ["oauth_consumer_key", "dpf43f3p2l4k3l03"],
      ["oauth_signature_method", "HMAC-SHA1"],
      ["oauth_timestamp", "137131200"],
      ["oauth_nonce", "wIjqoS"],
      ["oauth_callback", "http://printer.example.com/ready"],
    ]);
    expect(hmacSha1Signature(baseString, "kd94hf93k423kf44")).toBe("74KNZJeDHnMBp0EMJ9ZHt/XKycU=");
  });

  it("signs RFC 5849 §1.2's photo request, its query included", () => {
    const baseString = signatureBaseString("GET", "http://photos.example.net/photos?file=vacation.jpg&size=original", [
      ["oauth_consumer_key", "dpf43f3p2l4k3l03"],
      ["oauth_token", "nnch734d00sl2jdk"],
      ["oauth_signature_method", "HMAC-SHA1"],
      ["oauth_timestamp", "137131202"],
      ["oauth_nonce", "chapoH"],
    ]);
    expect(baseString).toBe(
      "GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3Ddpf43f3p2l4k3l03%26" +
        "oauth_nonce%3DchapoH%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131202%26" +
        "oauth_token%3Dnnch734d00sl2jdk%26size%3Doriginal",
    );
    expect(hmacSha1Signature(baseString, "kd94hf93k423kf44", "pfkkdhi9sl3r4s00")).toBe("MdpQcU8iPSUjWoN/UDMsK2sui9I=");
  });

  it("signs Twitter's documented example end to end and writes its Authorization header", () => {
    const protocol = signRequest({
      method: "POST",
      url: "https://api.twitter.com/1.1/statuses/update.json?include_entities=true",
      consumer: { key: "xvz1evFS4wEEPTGEFPHBog", secret: "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw" },
      token: {
        key: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
        secret: "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
      },
      form: [["status", "Hello Ladies + Gentlemen, a signed OAuth request!"]],
      nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
      timestamp: 1318622958,
    });
    expect(protocol).toEqual({
      oauth_consumer_key: "xvz1evFS4wEEPTGEFPHBog",
      oauth_nonce: "kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg",
      oauth_signature: "hCtSmYh+iHYCEqBWrE7C7hYmtUk=",
      oauth_signature_method: "HMAC-SHA1",
      oauth_timestamp: "1318622958",
      oauth_token: "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
      oauth_version: "1.0",
    });
    expect(authorizationHeader(protocol)).toBe(
      'OAuth oauth_consumer_key="xvz1evFS4wEEPTGEFPHBog", oauth_nonce="kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg", ' +
        'oauth_signature="hCtSmYh%2BiHYCEqBWrE7C7hYmtUk%3D", oauth_signature_method="HMAC-SHA1", ' +
        'oauth_timestamp="1318622958", oauth_token="370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb", ' +
        'oauth_version="1.0"',
    );
  });

  it("keys the HMAC with both secrets encoded, an absent token secret leaving the trailing &", () => {
    expect(hmacSha1Signature("base", "a&b", "")).toBe(hmacSha1Signature("base", "a&b"));
    // `a&b` as consumer secret is encoded, so it cannot pass for consumer `a` with token secret `b`.
    expect(hmacSha1Signature("base", "a&b")).not.toBe(hmacSha1Signature("base", "a", "b"));
  });
});
