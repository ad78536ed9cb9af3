// A service worker that reaches for the internal origin when it installs, activates and intercepts.
const internal = new URLSearchParams(self.location.search).get("internal");
self.addEventListener("install", (event) => {
  event.waitUntil(fetch(internal + "/from-service-worker").catch(() => {}));
  self.skipWaiting();
});
self.addEventListener("activate", () => { fetch(internal + "/sw-activate").catch(() => {}); });
self.addEventListener("fetch", (event) => {
  event.respondWith(fetch(internal + "/sw-proxied").catch(() => fetch(event.request)));
});
