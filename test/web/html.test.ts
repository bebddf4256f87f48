import { describe, expect, it } from "vitest";
import { documentOf, Html, html } from "../../src/web/html.ts";

describe("html", () => {
  it("html`` escapes values, keeps Html as it is, joins arrays and drops empty values", () => {
    const name = `"><script>alert(1)</script>`;
    const inner = html`<b>${name}</b>`;
    expect(html`<p title="${name}">${inner}${[html`<i>1</i>`, "<2>"]}${null}${false}${undefined}${0}</p>`.text).toBe(
      `<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"><b>&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</b><i>1</i>&lt;2&gt;0</p>`,
    );
    expect(html`${new Html("<br>")}`.text).toBe("<br>");
  });

  it("documentOf() escapes the title and the owner's email and loads only our own assets", () => {
    const page =
      documentOf({ title: "<T>", account: { email: "<e>@example.com", csrf: "tok" } }, html`<p>body</p>`).text;
    expect(page).toContain("<title>&lt;T&gt; · media-api</title>");
    expect(page).toContain("&lt;e&gt;@example.com");
    expect(page).toContain('<input type="hidden" name="csrf" value="tok">');
    expect(page.match(/(?:src|href)="[^"]*"/g)).toEqual([
      'href="/assets/site.css"',
      'src="/assets/copy.js"',
      'href="#main"',
      'href="/profile/api-keys"',
      'href="/profile/api-keys"',
      'href="/paste"',
      'href="/profile/jobs"',
      'href="/profile/webhooks"',
      'href="/profile/watches"',
      'href="/profile/account"',
      'href="/docs"',
    ]);
    expect(page).not.toMatch(/<script>|style=/);
  });
});
