// The service's check of HLS playlists before ffmpeg reads them: every link absolute and http(s),
// a master's playlists replaced by their checked copies, anything else refused.
import { describe, expect, it } from "vitest";
import { checkPlaylists, rewritePlaylist } from "../../src/media/hls-playlists.ts";

const base = new URL("https://cdn.example/v/master.m3u8?sig=1");
const keep = async (link: URL) => link.href;

describe("rewritePlaylist()", () => {
  it("makes segment lines and URI attributes absolute against the playlist's URL", async () => {
    const media =
      '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="key.bin",IV=0x1\n#EXT-X-MAP:URI="/init.mp4"\n#EXTINF:2,\nseg-0.ts\n\n#EXTINF:2,\nhttp://other.example/seg-1.ts\n#EXT-X-ENDLIST\n';
    expect(await rewritePlaylist(media, base, keep)).toBe(
      '#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI="https://cdn.example/v/key.bin",IV=0x1\n#EXT-X-MAP:URI="https://cdn.example/init.mp4"\n#EXTINF:2,\nhttps://cdn.example/v/seg-0.ts\n#EXTINF:2,\nhttp://other.example/seg-1.ts\n#EXT-X-ENDLIST\n',
    );
  });

  it("refuses any link that is not http(s), as a line or as an attribute", async () => {
    for (
      const link of [
        "httpproxy://10.0.0.5:3128/x.ts",
        "tcp://10.0.0.5:22/",
        "file:///etc/passwd",
        "crypto+tcp://10.0.0.5:1/x",
      ]
    ) {
      await expect(rewritePlaylist(`#EXTM3U\n#EXTINF:2,\n${link}\n`, base, keep)).rejects.toMatchObject({
        status: 403,
        code: "host_not_allowed",
      });
      await expect(rewritePlaylist(`#EXTM3U\n#EXT-X-MAP:URI="${link}"\n`, base, keep)).rejects.toMatchObject({
        status: 403,
      });
    }
  });
});

describe("checkPlaylists()", () => {
  it("replaces a master's variant and rendition playlists by their checked copies, and leaves other inputs alone", async () => {
    const answers: Record<string, string> = {
      "https://cdn.example/v/master.m3u8":
        '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",URI="audio.m3u8"\n#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO="a"\nvideo.m3u8\n',
      "https://cdn.example/v/audio.m3u8": "#EXTM3U\n#EXTINF:2,\na.aac\n#EXT-X-ENDLIST\n",
      "https://cdn.example/v/video.m3u8": "#EXTM3U\n#EXTINF:2,\nv.ts\n#EXT-X-ENDLIST\n",
    };
    const served: string[] = [];
    const inputs = await checkPlaylists(
      [{ url: "https://cdn.example/v/master.m3u8", headers: {}, hls: true }, {
        url: "https://cdn.example/sub.vtt",
        headers: {},
        hls: false,
      }],
      async (url) => ({ url, text: answers[url.href]! }),
      (playlist) => `http://served/${served.push(playlist)}`,
    );
    expect(inputs.map((input) => input.url)).toEqual(["http://served/3", "https://cdn.example/sub.vtt"]);
    expect(served[2]).toBe(
      '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",URI="http://served/1"\n#EXT-X-STREAM-INF:BANDWIDTH=1,AUDIO="a"\nhttp://served/2\n',
    );
    expect(served[0]).toContain("https://cdn.example/v/a.aac");
  });

  it("refuses a playlist that is none, and masters nested in masters", async () => {
    const fetchText = (text: string) => async (url: URL) => ({ url, text });
    const input = [{ url: "https://cdn.example/x.m3u8", headers: {}, hls: true }];
    await expect(checkPlaylists(input, fetchText("<html>"), String)).rejects.toMatchObject({ status: 502 });
    await expect(checkPlaylists(input, fetchText("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nx.m3u8\n"), String)).rejects
      .toMatchObject({ status: 502 });
  });
});
