// A Bluesky thread as a job reads it: the author's own chain of replies from a post down, in
// reading order, from getPostThread's answer. Pure. At each post the chain goes on with the
// author's earliest reply to it (later ones of theirs are branches, other people's are
// conversation). The AppView leaves out `replies` of the posts at the depth it was asked for, so
// a chain that reaches that depth with replies still counted goes on in a further answer.
import { z } from "zod";
import { upstreamFailed } from "../../http/problem.ts";
import { postLinkOf } from "./url.ts";

interface Node {
  $type?: string;
  post?: { uri: string; author: { did: string; handle: string }; record: { createdAt?: string }; replyCount?: number };
  replies?: Node[];
}

const Node: z.ZodType<Node> = z.lazy(() =>
  z.object({
    $type: z.string().optional(),
    post: z.object({
      uri: z.string(),
      author: z.object({ did: z.string(), handle: z.string() }),
      record: z.object({ createdAt: z.string().optional() }),
      replyCount: z.number().optional(),
    }).optional(),
    replies: z.array(Node).optional(),
  })
);
const ThreadAnswer = z.object({ thread: Node });

/** A post of the chain: its at:// URI and the link people open it by. */
export interface ChainPost {
  uri: string;
  link: URL;
}

/** What one answer gives: the chain from its post down, and where the chain goes on beyond the answer. */
export interface ChainPage {
  posts: ChainPost[];
  /** The last post of `posts` when the answer stopped above its replies; null when the chain ends there. */
  continuesBelow: ChainPost | null;
}

const isPost = (node: Node): node is Node & { post: NonNullable<Node["post"]> } =>
  node.$type === "app.bsky.feed.defs#threadViewPost" && node.post !== undefined;

const chainPost = (post: NonNullable<Node["post"]>): ChainPost => ({ uri: post.uri, link: postLinkOf(post) });

/** The author's own reply a chain goes on with: their earliest, by the time their record gives. */
function nextOf(node: Node, authorDid: string): Node | null {
  const own = (node.replies ?? []).filter((reply) => isPost(reply) && reply.post.author.did === authorDid);
  own.sort((a, b) => (a.post!.record.createdAt ?? "").localeCompare(b.post!.record.createdAt ?? ""));
  return own[0] ?? null;
}

/** The author's chain in a getPostThread answer, from its post down; 502 for a shape this does not read. */
export function authorChain(answer: unknown): ChainPage {
  const parsed = ThreadAnswer.safeParse(answer);
  if (!parsed.success || !isPost(parsed.data.thread)) {
    throw upstreamFailed("Bluesky answered with a thread this service cannot read; try again later.", {
      cause: parsed.error,
    });
  }
  let node: Node = parsed.data.thread;
  const authorDid = node.post!.author.did;
  const posts: ChainPost[] = [];
  for (;;) {
    posts.push(chainPost(node.post!));
    const next = nextOf(node, authorDid);
    if (next === null) break;
    node = next;
  }
  const cut = node.replies === undefined && (node.post!.replyCount ?? 0) > 0;
  return { posts, continuesBelow: cut ? posts.at(-1)! : null };
}
