// The Room API from the page: one Connect client over the gateway that served
// the page (same origin, so the browser's CORS rules hold without exceptions),
// the player's credential kept in the browser and sent as a bearer token.
//
// Connect's JSON encoding is used on purpose: the messages are small, the page
// can be debugged from the browser's network panel, and a leak check can read
// every byte the page received.
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { Room } from "./gen/poker/room/v1/room_pb";

const CREDENTIAL_KEY = "cardroom.credential";
const NAME_KEY = "cardroom.name";

/** The signed-in player, as the browser keeps it (localStorage). */
export interface Me {
  credential: string; // "<player_id>.<token>": the bearer token
  playerId: string;
  name: string;
}

export function me(): Me | null {
  const credential = localStorage.getItem(CREDENTIAL_KEY);
  if (!credential) return null;
  const dot = credential.lastIndexOf(".");
  return { credential, playerId: credential.slice(0, dot), name: localStorage.getItem(NAME_KEY) ?? "" };
}

export function remember(credential: string, name: string): void {
  localStorage.setItem(CREDENTIAL_KEY, credential);
  localStorage.setItem(NAME_KEY, name);
}

export function forget(): void {
  localStorage.removeItem(CREDENTIAL_KEY);
  localStorage.removeItem(NAME_KEY);
}

const bearer: Interceptor = (next) => async (req) => {
  const signedIn = me();
  if (signedIn) req.header.set("authorization", `Bearer ${signedIn.credential}`);
  return next(req);
};

const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: false,
  interceptors: [bearer],
});

/** The Room API (poker.room.v1.Room), every call through the gateway. */
export const room: Client<typeof Room> = createClient(Room, transport);

/** What went wrong, in words a person can act on: the room's own message says
 * what was wrong and what is allowed. */
export function explain(error: unknown): string {
  if (error instanceof ConnectError) {
    switch (error.code) {
      case Code.Unauthenticated:
        return `Not signed in: ${error.rawMessage}`;
      case Code.ResourceExhausted:
        return `Too many requests: ${error.rawMessage}`;
      case Code.Unavailable:
        return "The room did not answer; trying again.";
      default:
        return error.rawMessage || Code[error.code];
    }
  }
  return error instanceof Error ? error.message : String(error);
}

/** True for errors a stream should reconnect after (the room restarting, the
 * network dropping), false for a refusal that will not change by retrying. */
export function retryable(error: unknown): boolean {
  const code = error instanceof ConnectError ? error.code : Code.Unknown;
  return code === Code.Unavailable || code === Code.Unknown || code === Code.Canceled || code === Code.DeadlineExceeded;
}

export { Code, ConnectError };
