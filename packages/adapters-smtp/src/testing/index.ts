// Test support for anything that sends mail; never imported by production code.
export { type ReceivedMail, type SmtpSink, type SmtpSinkOptions, startSmtpSink } from "./smtp-sink.ts";
