import assert from "node:assert/strict";
import { test } from "node:test";
import { applyTextCase, type TextCase } from "./text-case.ts";

const CASES: [text: string, textCase: TextCase, expected: string][] = [
  ["Hello wORLD", "none", "Hello wORLD"],
  ["Hello wORLD", "uppercase", "HELLO WORLD"],
  ["Hello wORLD", "lowercase", "hello world"],
  ["hello wORLD", "capitalize", "Hello WORLD"],
  ["the quick  brown\tfox", "capitalize", "The Quick  Brown\tFox"],
  ["«bonjour» (hello) \"quoted\"", "capitalize", "«Bonjour» (Hello) \"Quoted\""],
  ["3am meeting", "capitalize", "3am Meeting"],
  ["don't stop", "capitalize", "Don't Stop"],
  ["łódź żółw", "capitalize", "Łódź Żółw"],
  ["привет мир", "capitalize", "Привет Мир"],
  ["你好 world", "capitalize", "你好 World"],
  ["straße", "uppercase", "STRASSE"],
  ["", "capitalize", ""],
  ["ÉCOLE", "lowercase", "école"],
];

for (const [text, textCase, expected] of CASES) {
  test(`${textCase}: ${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => {
    assert.equal(applyTextCase(text, textCase), expected);
  });
}
