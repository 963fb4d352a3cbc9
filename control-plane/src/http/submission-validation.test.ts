import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

const VIDEO = "https://videos.example.com/clip.mp4";
let t: TestApi;
let key: string;

before(async () => {
  t = await startTestApi();
  ({ api_key: key } = await t.createKey({ concurrency: 1000 }));
});
after(() => t.close());

const submit = (body: unknown) => t.request("POST", "/v1/subtitles", { key, body });

describe("submission validation (spec: Submission request, Style object)", () => {
  const invalid: [string, unknown, RegExp][] = [
    ["body is an array", [], /JSON object/],
    ["body is a string", "x", /JSON object/],
    ["video_url missing", {}, /video_url or upload_id is required/],
    ["video_url null", { video_url: null }, /video_url must not be null/],
    ["video_url http", { video_url: "http://a.example/v.mp4" }, /video_url/],
    ["video_url relative", { video_url: "/v.mp4" }, /video_url/],
    ["video_url not a URL", { video_url: "https://" }, /video_url/],
    ["video_url too long", { video_url: `https://a.example/${"a".repeat(4080)}` }, /video_url must be at most 4096/],
    ["unknown top-level field", { video_url: VIDEO, foo: 1 }, /unknown field foo/],
    ["unknown style field", { video_url: VIDEO, style: { glow: true } }, /unknown field style\.glow/],
    ["unknown offset field", { video_url: VIDEO, style: { offset: { x: 1 } } }, /unknown field style\.offset\.x/],
    ["unknown background field", { video_url: VIDEO, style: { background: { radius: 2 } } }, /style\.background\.radius/],
    ["unknown outline field", { video_url: VIDEO, style: { outline: { width: 2 } } }, /style\.outline\.width/],
    ["unknown shadow field", { video_url: VIDEO, style: { shadow: { x: 2 } } }, /style\.shadow\.x/],
    ["preset unknown", { video_url: VIDEO, preset: "fancy" }, /preset must be one of/],
    ["preset null", { video_url: VIDEO, preset: null }, /preset must not be null/],
    ["language uppercase", { video_url: VIDEO, language: "EN" }, /language/],
    ["language too long", { video_url: VIDEO, language: "engl" }, /language/],
    ["language one letter", { video_url: VIDEO, language: "e" }, /language/],
    ["style null", { video_url: VIDEO, style: null }, /style must not be null/],
    ["max_duration_seconds 0", { video_url: VIDEO, max_duration_seconds: 0 }, /between 1 and 600/],
    ["max_duration_seconds 601", { video_url: VIDEO, max_duration_seconds: 601 }, /between 1 and 600/],
    ["max_duration_seconds fraction", { video_url: VIDEO, max_duration_seconds: 10.5 }, /max_duration_seconds/],
    ["max_duration_seconds string", { video_url: VIDEO, max_duration_seconds: "60" }, /max_duration_seconds/],
    ["text_color shorthand", { video_url: VIDEO, style: { text_color: "#fff" } }, /hex color/],
    ["text_color alpha", { video_url: VIDEO, style: { text_color: "#ffffffff" } }, /hex color/],
    ["text_color named", { video_url: VIDEO, style: { text_color: "white" } }, /hex color/],
    ["highlight_color no hash", { video_url: VIDEO, style: { highlight_color: "ff00ff" } }, /hex color/],
    ["background.color rgb()", { video_url: VIDEO, style: { background: { color: "rgb(0,0,0)" } } }, /hex color/],
    ["outline.color null", { video_url: VIDEO, style: { outline: { color: null } } }, /must not be null/],
    ["shadow.color alpha", { video_url: VIDEO, style: { shadow: { color: "#00000080" } } }, /hex color/],
    ["position", { video_url: VIDEO, style: { position: "middle" } }, /must be one of/],
    ["horizontal_position", { video_url: VIDEO, style: { horizontal_position: "centre" } }, /must be one of/],
    ["text_alignment", { video_url: VIDEO, style: { text_alignment: "justify" } }, /must be one of/],
    ["font_family custom", { video_url: VIDEO, style: { font_family: "Comic Sans MS" } }, /must be one of/],
    ["font_family url", { video_url: VIDEO, style: { font_family: "https://fonts.example/x.ttf" } }, /must be one of/],
    ["font_size 11", { video_url: VIDEO, style: { font_size: 11 } }, /between 12 and 240/],
    ["font_size 241", { video_url: VIDEO, style: { font_size: 241 } }, /between 12 and 240/],
    ["font_weight 500", { video_url: VIDEO, style: { font_weight: 500 } }, /must be one of 400, 700/],
    ["font_weight '700'", { video_url: VIDEO, style: { font_weight: "700" } }, /must be one of/],
    ["font_style oblique", { video_url: VIDEO, style: { font_style: "oblique" } }, /must be one of/],
    ["text_case title", { video_url: VIDEO, style: { text_case: "title" } }, /must be one of/],
    ["text_width huge", { video_url: VIDEO, style: { text_width: "huge" } }, /must be one of/],
    ["line_count 4", { video_url: VIDEO, style: { line_count: 4 } }, /must be one of 0, 1, 2, 3, 100/],
    ["line_count -1", { video_url: VIDEO, style: { line_count: -1 } }, /must be one of/],
    ["scale 0.1", { video_url: VIDEO, style: { scale: 0.1 } }, /between 0.2 and 1/],
    ["scale 1.5", { video_url: VIDEO, style: { scale: 1.5 } }, /between 0.2 and 1/],
    ["offset.left -1921", { video_url: VIDEO, style: { offset: { left: -1921 } } }, /between -1920 and 1920/],
    ["offset.bottom 1921", { video_url: VIDEO, style: { offset: { bottom: 1921 } } }, /between -1920 and 1920/],
    ["offset null", { video_url: VIDEO, style: { offset: null } }, /must not be null/],
    ["background.type", { video_url: VIDEO, style: { background: { type: "pill" } } }, /must be one of/],
    ["background.opacity 1.1", { video_url: VIDEO, style: { background: { opacity: 1.1 } } }, /between 0 and 1/],
    ["background.opacity -0.1", { video_url: VIDEO, style: { background: { opacity: -0.1 } } }, /between 0 and 1/],
    ["outline.thickness 21", { video_url: VIDEO, style: { outline: { thickness: 21 } } }, /between 0 and 20/],
    ["outline.thickness -1", { video_url: VIDEO, style: { outline: { thickness: -1 } } }, /between 0 and 20/],
    ["shadow.enabled string", { video_url: VIDEO, style: { shadow: { enabled: "true" } } }, /shadow\.enabled/],
    ["shadow.blur 41", { video_url: VIDEO, style: { shadow: { blur: 41 } } }, /between 0 and 40/],
    ["shadow.distance 21", { video_url: VIDEO, style: { shadow: { distance: 21 } } }, /between 0 and 20/],
    ["shadow.angle 181", { video_url: VIDEO, style: { shadow: { angle: 181 } } }, /between -180 and 180/],
    ["shadow.angle -181", { video_url: VIDEO, style: { shadow: { angle: -181 } } }, /between -180 and 180/],
    ["shadow null", { video_url: VIDEO, style: { shadow: null } }, /must not be null/],
    ["subtitles.profile unknown", { video_url: VIDEO, subtitles: { profile: "youtube" } }, /subtitles\.profile must be one of "netflix", "bbc", "vertical"/],
    ["subtitles unknown field", { video_url: VIDEO, subtitles: { cps: 20 } }, /unknown field subtitles\.cps/],
    ["vocabulary of 101 terms", { video_url: VIDEO, vocabulary: Array.from({ length: 101 }, (_, i) => `term${i}`) }, /vocabulary must hold at most 100 items/],
    ["vocabulary empty term", { video_url: VIDEO, vocabulary: ["ok", ""] }, /vocabulary\[1\] must not be empty/],
    ["vocabulary blank term", { video_url: VIDEO, vocabulary: ["   "] }, /vocabulary\[0\] must hold visible text and no control characters/],
    ["vocabulary term over 50", { video_url: VIDEO, vocabulary: ["x".repeat(51)] }, /vocabulary\[0\] must be at most 50 characters/],
    ["vocabulary control character", { video_url: VIDEO, vocabulary: ["Kuber\u0007netes"] }, /vocabulary\[0\] must hold visible text and no control characters/],
    ["vocabulary not strings", { video_url: VIDEO, vocabulary: [42] }, /vocabulary\[0\]/],
    ["replacements empty key", { video_url: VIDEO, replacements: { "": "x" } }, /replacements: "" is not a word or phrase of 1 to 50 characters/],
    ["replacements key with a tab", { video_url: VIDEO, replacements: { "a\tb": "x" } }, /replacements: "a\\tb" is not a word or phrase/],
    ["replacements value not text", { video_url: VIDEO, replacements: { gonna: 1 } }, /replacements\.gonna/],
    ["replacements value with a line break", { video_url: VIDEO, replacements: { gonna: "going\nto" } }, /replacements\.gonna must not contain control characters/],
    ["profanity unknown", { video_url: VIDEO, profanity: "bleep" }, /profanity must be one of "keep", "mask"/],
  ];
  for (const [name, body, message] of invalid) {
    test(`400 INVALID_REQUEST: ${name}`, async () => {
      const before = await t.request("GET", "/v1/usage", { key });
      const res = await submit(body);
      assert.equal(res.status, 400);
      assertErrorShape(res.body, "INVALID_REQUEST");
      assert.match(res.body.error.message, message);
      assert.equal(res.headers.get("x-request-id"), res.body.error.request_id);
      const after = await t.request("GET", "/v1/usage", { key });
      assert.deepEqual(after.body, before.body, "a rejected request changes nothing");
    });
  }

  const valid: [string, unknown][] = [
    ["minimal", { video_url: VIDEO }],
    ["uppercase scheme", { video_url: "HTTPS://videos.example.com/a.mov" }],
    ["max-length URL", { video_url: `https://a.example/${"a".repeat(4096 - 18)}` }],
    ["every preset field at bounds", {
      video_url: VIDEO, preset: "thin&bold", language: "eng", max_duration_seconds: 600,
      style: {
        position: "top", horizontal_position: "right", text_alignment: "left", text_color: "#aBcDeF", highlight_color: "#000000",
        font_family: "Paytone One", font_size: 240, font_weight: 700, font_style: "italic", text_case: "capitalize", text_width: "small",
        line_count: 100, scale: 1, offset: { left: -1920, top: 1920, right: 0, bottom: -1920 },
        background: { type: "box-rounded", color: "#123456", opacity: 0 }, outline: { color: "#ffffff", thickness: 20 },
        shadow: { enabled: false, color: "#000000", blur: 40, distance: 20, angle: -180 },
      },
    }],
    ["lower bounds", { video_url: VIDEO, max_duration_seconds: 1, style: { font_size: 12, scale: 0.2, line_count: 0, outline: { thickness: 0 }, shadow: { blur: 0, distance: 0, angle: 180 }, background: { opacity: 1 } } }],
    ["empty nested objects", { video_url: VIDEO, style: { offset: {}, background: {}, outline: {}, shadow: {} } }],
    ["two-letter language", { video_url: VIDEO, language: "de" }],
    ["subtitles, vocabulary, replacements, profanity", {
      video_url: VIDEO, subtitles: { profile: "vertical" }, vocabulary: Array.from({ length: 100 }, (_, i) => `Term ${i} ${"x".repeat(40)}`),
      replacements: { gonna: "going to", "kind of": "somewhat", um: "" }, profanity: "mask",
    }],
    ["empty subtitles object", { video_url: VIDEO, subtitles: {} }],
  ];
  for (const [name, body] of valid) {
    test(`202: ${name}`, async () => {
      const res = await submit(body);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.match(res.body.id, /^job_[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.equal(res.body.status, "queued");
      assert.equal(res.body.replayed, false);
      assert.equal(res.body.status_url, `${t.url}/v1/jobs/${res.body.id}`);
    });
  }

  test("every preset id is accepted", async () => {
    const { body } = await t.request("GET", "/v1/presets");
    assert.equal(body.presets.length, 16);
    for (const preset of body.presets) assert.equal((await submit({ video_url: VIDEO, preset: preset.id })).status, 202, preset.id);
  });

  test("a non-JSON body or content type is 400", async () => {
    const broken = await t.request("POST", "/v1/subtitles", { key, rawBody: "{not json", headers: { "content-type": "application/json" } });
    assert.equal(broken.status, 400);
    assertErrorShape(broken.body, "INVALID_REQUEST");
    const form = await t.request("POST", "/v1/subtitles", { key, rawBody: "video_url=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    assert.equal(form.status, 400);
    assertErrorShape(form.body, "INVALID_REQUEST");
  });
});
