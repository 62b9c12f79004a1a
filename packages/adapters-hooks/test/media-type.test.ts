import { describe, expect, it } from "vitest";
import { parseMediaType } from "../src/media-type.ts";

// Go's mime.ParseMediaType, whose errors GoTrue repeats in "Invalid Content-Type header: …".
describe("parseMediaType", () => {
  it.each([
    ["application/json", "application/json"],
    ["Application/JSON ; charset=UTF-8", "application/json"],
    ['application/json; charset="utf-8"; profile="a \\"b\\""', "application/json"],
    ["application/json;", "application/json"],
    ["text", "text"],
  ])("reads %s", (header, mediaType) => {
    expect(parseMediaType(header)).toEqual({ mediaType });
  });

  it.each([
    ["", "mime: no media type"],
    ["; charset=utf-8", "mime: no media type"],
    ["application json", "mime: expected slash after first token"],
    ["application/", "mime: expected token after slash"],
    ["application/json/x", "mime: unexpected content after media subtype"],
    ["application/json; charset", "mime: invalid media parameter"],
    ['application/json; charset="utf-8', "mime: invalid media parameter"],
    ["application/json; a=1; A=2", "mime: duplicate parameter name"],
  ])("refuses %j", (header, problem) => {
    expect(parseMediaType(header)).toEqual({ problem });
  });
});
