// A browser in miniature for the owner's site in-process: a cookie jar, same-origin posts, the
// forms' CSRF tokens, and an address of its own as a server adapter would record it.
import type { App } from "../../src/app.ts";

export const ORIGIN = "http://keys.test";
export const PASSWORD = "a long enough password";
let visitors = 0;

/** A browser in miniature: keeps cookies, sends same-origin posts, reads the form's CSRF token. */
export class Visitor {
  cookies = new Map<string, string>();
  /** Its own address unless one is given, as a server adapter would record it. */
  constructor(private app: App, private address = `198.51.100.${++visitors}`) {}

  async send(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const request = new Request(`${ORIGIN}${path}`, { ...init, headers });
    const response = await this.app.fetch(request, this.address);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, value] = pair!.split("=") as [string, string];
      if (value) this.cookies.set(name, value);
      else this.cookies.delete(name);
    }
    return response;
  }

  async csrfOf(path: string): Promise<string> {
    const page = await (await this.send(path)).text();
    return /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  }

  post(
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = { "sec-fetch-site": "same-origin" },
  ) {
    return this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async signUp(email: string): Promise<Response> {
    const csrf = await this.csrfOf("/sign-up");
    return this.post("/sign-up", { csrf, email, password: PASSWORD, repeat: PASSWORD });
  }

  async signIn(email: string, password = PASSWORD): Promise<Response> {
    return this.post("/sign-in", { csrf: await this.csrfOf("/sign-in"), email, password });
  }

  /** Posts the form and, as a browser does, follows its redirect to the page that shows the key. */
  async createKey(name: string, expires = "never"): Promise<Response> {
    const posted = await this.post("/profile/api-keys", {
      csrf: await this.csrfOf("/profile/api-keys"),
      name,
      expires,
    });
    return posted.status === 303 ? this.send(posted.headers.get("location")!) : posted;
  }
}
