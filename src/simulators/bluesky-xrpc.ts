// What the local Bluesky AppView accepts as identifiers, and its XRPC error bodies.

// at-identifier: a handle (https://atproto.com/specs/handle) or a DID (https://atproto.com/specs/did).
export const HANDLE = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
export const DID = /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/;
// at-uri as getPosts' `uris` takes it: at://<did or handle>/<collection>/<rkey> (https://atproto.com/specs/at-uri-scheme).
export const AT_URI = /^at:\/\/[^/\s]+(\/[a-zA-Z0-9.-]+(\/[^/\s]+)?)?$/;

export type Answer = { status: number; body: unknown };

/** An XRPC error body; `InvalidRequest` is what xrpc-server's InvalidRequestError sends by default. */
export function xrpcError(status: number, message: string, error = 'InvalidRequest'): Answer {
  return { status, body: { error, message } };
}
