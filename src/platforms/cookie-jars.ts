// The operator's cookie jars: one per platform (COOKIES_DIR/<platform>/*.txt, one account per
// file, and COOKIES_FILE_<PLATFORM>), with COOKIES_FILE as the default jar of every platform that
// has none. An account's cookies go only to its platform's hosts (the lines for other domains are
// left out of what a tool or the relay is handed), the accounts of a jar are taken in turn so
// that no one account's reputation pays for every call, and one the platform refused is set
// aside for a while (COOKIES_SET_ASIDE_S). The files are read anew for every use and never
// written; their content is never logged nor listed.
import { type CookieFile, cookieFileFault, type Files } from "./tools/ytdlp/cookie-file.ts";
import { hostMatches } from "./hosts.ts";

/** Cookies handed to one use, and whose they are. */
export interface TakenCookies {
  content: Uint8Array;
  /** `<PLATFORM>/<account>`; null for the default jar (COOKIES_FILE), which is never set aside. */
  account: string | null;
  /** The platform refused this account (`reason`, such as "a sign-in"): set it aside for a while. */
  refused(reason: string): void;
}

export interface CookieSource {
  /** The cookies for a call to `url`'s host (its platform's jar, else the default); null for none. */
  take(url: URL): Promise<TakenCookies | null>;
}

/** A jar as `admin cookie-jars` and the platform check show it: never a cookie. */
export interface JarListing {
  platform: string;
  accounts: { account: string; setAsideUntil: string | null; reason: string | null }[];
}

export interface CookieJars extends CookieSource {
  /** The platforms' own jars, read anew. */
  listing(): Promise<JarListing[]>;
}

export interface CookieJarsOptions {
  files: Files;
  /** COOKIES_DIR; undefined without one. */
  dir?: string;
  /** COOKIES_FILE_<PLATFORM>, by platform id. */
  platformFiles: ReadonlyMap<string, string>;
  /** COOKIES_FILE; undefined without one. */
  fallback?: CookieFile;
  /** The listed platforms' ids, the platform a host belongs to, and the hosts a platform's cookies may go to. */
  platforms: readonly string[];
  platformOfHost: (hostname: string) => string | null;
  trafficHosts: (platform: string) => readonly string[];
  setAsideMs: number;
  now: () => Date;
  /** A file that cannot be used (said once until it changes), naming it but never its content. */
  onFault: (fault: string) => void;
  onSetAside: (platform: string, account: string, reason: string, until: Date) => void;
}

interface Account {
  name: string;
  path: string;
}

export function createCookieJars(options: CookieJarsOptions): CookieJars {
  const turns = new Map<string, number>();
  const aside = new Map<string, { until: number; reason: string }>();
  const told = new Map<string, string>();

  const accountsOf = (platform: string) => jarAccounts(options, platform);
  const readAccount = (account: Account) => readUsable(options, told, account);

  const isAside = (key: string) => (aside.get(key)?.until ?? 0) > options.now().getTime();

  function taken(platform: string, account: Account, content: Uint8Array): TakenCookies {
    const key = `${platform}/${account.name}`;
    return {
      content: cookiesForHosts(content, options.trafficHosts(platform)),
      account: key,
      refused(reason) {
        const until = new Date(options.now().getTime() + options.setAsideMs);
        aside.set(key, { until: until.getTime(), reason });
        options.onSetAside(platform, account.name, reason, until);
      },
    };
  }

  const fallback = options.fallback === undefined ? null : wholeFile(options.fallback);
  const fromDefault = async () => (await fallback?.take(new URL("about:blank"))) ?? null;

  return {
    async take(url) {
      const platform = options.platformOfHost(url.hostname);
      const accounts = platform === null ? [] : await accountsOf(platform);
      if (platform === null || accounts.length === 0) return fromDefault();
      // A platform with a jar never falls back to the default: with every account set aside it goes without.
      const ready = accounts.filter((account) => !isAside(`${platform}/${account.name}`));
      const turn = turns.get(platform) ?? 0;
      turns.set(platform, turn + 1);
      for (let i = 0; i < ready.length; i++) {
        const account = ready[(turn + i) % ready.length]!;
        const content = await readAccount(account);
        if (content !== null) return taken(platform, account, content);
      }
      return null;
    },
    async listing() {
      const jars = await Promise.all(options.platforms.map(async (platform) => ({
        platform,
        accounts: (await accountsOf(platform)).map((account) => {
          const key = `${platform}/${account.name}`;
          const held = isAside(key) ? aside.get(key)! : null;
          return {
            account: account.name,
            setAsideUntil: held === null ? null : new Date(held.until).toISOString(),
            reason: held?.reason ?? null,
          };
        }),
      })));
      return jars.filter((jar) => jar.accounts.length > 0);
    },
  };
}

/** One cookie file for every host (COOKIES_FILE, the default jar): its cookies go where their domains say. */
export function wholeFile(file: CookieFile): CookieSource {
  return {
    async take() {
      const content = await file.read();
      return content === null ? null : { content, account: null, refused: () => {} };
    },
  };
}

/** A platform's accounts: COOKIES_FILE_<PLATFORM>, then COOKIES_DIR/<platform>/*.txt by name. */
async function jarAccounts(
  options: Pick<CookieJarsOptions, "files" | "dir" | "platformFiles">,
  platform: string,
): Promise<Account[]> {
  const named = options.platformFiles.get(platform);
  const folder = options.dir === undefined ? null : `${options.dir.replace(/\/+$/, "")}/${platform.toLowerCase()}`;
  const names = folder === null ? [] : await options.files.list(folder).catch(() => []);
  return [
    ...(named === undefined ? [] : [{ name: `COOKIES_FILE_${platform}`, path: named }]),
    ...names.filter((name) => name.endsWith(".txt")).sort().map((name) => ({
      name: name.slice(0, -".txt".length),
      path: `${folder}/${name}`,
    })),
  ];
}

/** An account file's content, or null after telling why it cannot be used (once until the fault changes). */
async function readUsable(
  options: Pick<CookieJarsOptions, "files" | "onFault">,
  told: Map<string, string>,
  account: Account,
): Promise<Uint8Array | null> {
  let fault: string | null;
  let content: Uint8Array | null = null;
  try {
    content = await options.files.read(account.path);
    fault = cookieFileFault(content);
    if (fault !== null) fault = `is not a Netscape cookie file (${fault})`;
  } catch (error) {
    fault = `could not be read (${(error as { code?: string }).code ?? "error"})`;
  }
  if (fault === null) {
    told.delete(account.path);
    return content;
  }
  const text = `the cookie file ${account.path} ${fault}; its account is skipped`;
  if (told.get(account.path) !== text) options.onFault(text);
  told.set(account.path, text);
  return null;
}

/**
 * The lines of a Netscape cookie file whose domain is one of `hosts` or under one (comments kept): what an
 * account of a platform's jar may send, whatever else its browser export held.
 */
export function cookiesForHosts(content: Uint8Array, hosts: readonly string[]): Uint8Array {
  const lines = new TextDecoder().decode(content).split("\n").filter((raw) => {
    const line = raw.startsWith("#HttpOnly_") ? raw.slice("#HttpOnly_".length) : raw;
    if (line.startsWith("#") || line.trim() === "") return true;
    const domain = line.split("\t", 1)[0]!.toLowerCase().replace(/^\./, "");
    return hosts.some((host) => hostMatches(domain, host));
  });
  return new TextEncoder().encode(lines.join("\n"));
}
