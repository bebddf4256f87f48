import { describe, expect, test } from "vitest";
import { cuesToSrt, cuesToText, cuesToVtt, parseSrt, parseVtt } from "../../src/media/cues.ts";

const vtt = `WEBVTT
Kind: captions
Language: en

NOTE a note, not a cue

1
00:00:00.000 --> 00:00:01.500 align:start position:0%
<v Ana>Hello &amp; <c.yellow>welcome</c></v>

00:01.500 --> 00:03.000
A second line
`;

const srt =
  `1\r\n00:00:00,000 --> 00:00:01,500\r\n<i>Hello</i> & welcome\r\n\r\n2\r\n00:00:05,250 --> 00:00:07,000\r\nAfter a pause\r\n`;

describe("parseVtt()", () => {
  test("reads cues with their times, skipping the header, notes, ids, settings and markup", () => {
    expect(parseVtt(vtt)).toEqual([
      { start: 0, end: 1.5, text: "Hello & welcome" },
      { start: 1.5, end: 3, text: "A second line" },
    ]);
  });

  test("automatic captions that roll say each line once, without their word timings", () => {
    const rolling = `WEBVTT

00:00:00.000 --> 00:00:02.000
so<00:00:00.500><c> today</c>

00:00:02.000 --> 00:00:04.000
so today
we talk
`;
    expect(parseVtt(rolling)).toEqual([
      { start: 0, end: 2, text: "so today" },
      { start: 2, end: 4, text: "we talk" },
    ]);
  });
});

describe("parseSrt()", () => {
  test("reads cues with CRLF lines, comma fractions and tags", () => {
    expect(parseSrt(srt)).toEqual([
      { start: 0, end: 1.5, text: "Hello & welcome" },
      { start: 5.25, end: 7, text: "After a pause" },
    ]);
  });
});

describe("writing cues", () => {
  const cues = parseSrt(srt);

  test("as SRT and WebVTT, which read back as the same cues", () => {
    expect(cuesToSrt(cues)).toBe(
      "1\n00:00:00,000 --> 00:00:01,500\nHello & welcome\n\n2\n00:00:05,250 --> 00:00:07,000\nAfter a pause\n",
    );
    expect(cuesToVtt(cues)).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:01\.500\nHello &amp; welcome\n/);
    expect(parseSrt(cuesToSrt(cues))).toEqual(cues);
    expect(parseVtt(cuesToVtt(cues))).toEqual(cues);
  });

  test("as text: a paragraph wherever the speech pauses two seconds or more", () => {
    expect(cuesToText(cues)).toBe("Hello & welcome\n\nAfter a pause\n");
    expect(cuesToText(parseVtt(vtt))).toBe("Hello & welcome A second line\n");
    expect(cuesToText([])).toBe("");
  });
});
