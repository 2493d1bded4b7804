// Offline: registers the service worker the build writes at the site root (sw.js, made
// by Workbox from hooks/service_worker.mjs), which keeps every page, the search and the
// calculators' Python in the browser after one visit. When a new version of the site has
// been downloaded and is waiting, the page says so and offers to reload into it.
//
// Nothing happens for a page opened from a file (file://) or where the browser has no
// service workers (an insecure http address other than localhost).
//
// Safety: the prompt is built with createElement and textContent only.

const root = new URL("../../", import.meta.url); // this file is assets/javascripts/offline.mjs

if ("serviceWorker" in navigator && /^https?:$/.test(location.protocol)) {
  // On a calculator page Python loads first: precaching the whole site (about 20 MB) beside
  // it would delay the first result. calculators.mjs says when it is ready (or failed).
  const calculators = document.querySelector(".calc[data-calculator]");
  if (calculators && document.documentElement.dataset.calculators !== "settled") {
    document.addEventListener("calculators-settled", register, { once: true });
  } else if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

function register() {
  let reloading = false; // set when the reader chose Reload, not when the first install claims the page
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (reloading) location.reload();
  });
  navigator.serviceWorker.register(new URL("sw.js", root)).then(
    (registration) => {
      const offer = () => {
        // Only an update waits behind a worker that already controls this page.
        if (navigator.serviceWorker.controller) {
          showPrompt(() => {
            const waiting = registration.waiting;
            if (!waiting) return location.reload(); // another tab activated it already
            reloading = true;
            waiting.postMessage({ type: "SKIP_WAITING" });
          });
        }
      };
      if (registration.waiting) offer();
      registration.addEventListener("updatefound", () => {
        const installing = registration.installing;
        if (!installing) return;
        installing.addEventListener("statechange", () => {
          if (installing.state === "installed") offer();
        });
      });
    },
    (error) => console.warn("The site cannot be kept for offline use:", error),
  );
}

function showPrompt(onReload) {
  if (document.getElementById("offline-update")) return;
  // Material's dialog (its "Copied to clipboard" toast): the theme's colours and place.
  const dialog = document.createElement("div");
  dialog.id = "offline-update";
  dialog.className = "md-dialog";
  dialog.setAttribute("role", "status"); // a polite live region, announced once filled
  const inner = document.createElement("div");
  inner.className = "md-dialog__inner md-typeset offline-update__inner";
  dialog.append(inner);
  // First in the page, so the keyboard reaches it right after the skip link.
  document.body.prepend(dialog);

  const text = document.createElement("span");
  text.textContent = "A new version is available";
  const reload = document.createElement("button");
  reload.type = "button";
  reload.className = "md-button md-button--primary offline-update__reload";
  reload.textContent = "Reload";
  reload.addEventListener("click", () => {
    reload.disabled = true;
    reload.textContent = "Reloading…";
    onReload();
  });
  const later = document.createElement("button");
  later.type = "button";
  later.className = "offline-update__later";
  later.textContent = "Not now";
  later.addEventListener("click", () => dialog.remove());

  // Filled after insertion, so screen readers announce the live region's new text.
  requestAnimationFrame(() => {
    inner.append(text, reload, later);
    dialog.classList.add("md-dialog--active");
  });
}
