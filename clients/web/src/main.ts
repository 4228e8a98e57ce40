// The web client's entry: a hash router over three pages.
//   #/                 the lobby (register, tables, tournaments, sit down)
//   #/table/<id>       play at a table where you have a seat
//   #/watch/<id>       watch any table as a spectator
// Each page returns a cleanup function that ends its streams when you leave it.
import { me } from "./api";
import { lobbyPage } from "./lobby";
import { tablePage } from "./table";

type Cleanup = () => void;
let leave: Cleanup | null = null;

function route(): void {
  leave?.();
  leave = null;
  const app = document.getElementById("app") as HTMLElement;
  app.replaceChildren();
  const [, page, id] = location.hash.replace(/^#/, "").split("/");
  const who = me();
  (document.getElementById("me") as HTMLElement).textContent = who ? `Signed in as ${who.name}` : "";
  if ((page === "table" || page === "watch") && id) {
    leave = tablePage(app, decodeURIComponent(id), page === "watch" ? "spectator" : "player");
  } else {
    leave = lobbyPage(app);
  }
  app.focus({ preventScroll: true });
}

window.addEventListener("hashchange", route);
route();
