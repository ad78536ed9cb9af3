// A dedicated or shared worker that reaches for the internal origin given in its URL.
const internal = new URLSearchParams(self.location.search).get("internal");
fetch(internal + "/from-worker").catch(() => {});
try { new WebSocket(internal.replace(/^http/, "ws") + "/worker-socket"); } catch (e) {}
try { importScripts(internal + "/imported.js"); } catch (e) {}
self.onconnect = (event) => { event.ports[0].postMessage("connected"); };
