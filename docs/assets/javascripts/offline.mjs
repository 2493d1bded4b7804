// Offline: registers the service worker the build writes at the site root (sw.js, from
// hooks/package/service_worker_template.mjs) on every page, once the page has loaded (and
// Python has answered, on a page with calculators), and shows in the footer what it holds,
// counted from its caches: "Every page and the search are stored for offline use" once the
// whole reading site is kept (fetched in the background after the first page), and a
// button that stores the calculators' Python ahead of time (its size comes from the
// build). When a new version of the site has been downloaded and is waiting, the page says
// so and offers to reload into it.
//
// Data plans: when the browser asks to save data (navigator.connection.saveData), no page
// is fetched in the background; pages are kept as they are read, and Python only once a
// calculator has loaded it.
//
// Nothing happens for a page opened from a file (file://) or where the browser has no
// service workers (an insecure http address other than localhost).
//
// Safety: everything shown is built with createElement and textContent only.

import { PYTHON_WIDGETS } from "./calculator-form.mjs";

/**
 * @typedef {import("../../../types/offline-messages").OfflineRequest} OfflineRequest
 * @typedef {import("../../../types/offline-messages").OfflineStatus} OfflineStatus
 * @typedef {import("../../../types/offline-messages").OfflineFailure} OfflineFailure
 * @typedef {Partial<OfflineStatus & OfflineFailure & {storing: true}>} Said What the footer
 *   says: the service worker's reply (a status, or its failure), or that the site is being
 *   stored, before the first reply.
 */

const root = new URL("../../", import.meta.url); // this file is assets/javascripts/offline.mjs

if ("serviceWorker" in navigator && /^https?:$/.test(location.protocol)) {
  // Under `mkdocs serve` (hooks/mkdocs_hooks.py marks its pages) pages change on every
  // edit: no worker keeps them, and one left from an earlier visit is removed.
  if (document.documentElement.hasAttribute("data-dev-server")) {
    navigator.serviceWorker.getRegistrations().then((all) => all.forEach((r) => r.unregister()));
  } else pageSettled().then(register);
}

// The page the reader opened comes first: storing the whole site beside it would slow its
// load, and on a calculator page Python's download and start (the first live answer took
// 1.5 times as long). calculator-client.mjs says when Python has answered, or could not start.
function pageSettled() {
  /** @type {Promise<unknown>} */
  const settled = new Promise((resolve) => {
    const python = document.querySelector(PYTHON_WIDGETS);
    if (python && document.documentElement.dataset.calculators !== "settled") {
      document.addEventListener("calculators-settled", resolve, { once: true });
    } else if (document.readyState === "complete") resolve(undefined);
    else window.addEventListener("load", resolve, { once: true });
  });
  return settled;
}

function savingData() {
  return Boolean(navigator.connection && navigator.connection.saveData);
}

// Ask the active service worker for something; resolves with its reply.
/**
 * @param {"STATUS" | "KEEP_PYTHON"} type
 * @returns {Promise<Said>}
 */
async function ask(type) {
  const registration = await navigator.serviceWorker.ready;
  const channel = new MessageChannel();
  /** @type {Promise<Said>} */
  const reply = new Promise((resolve) => {
    channel.port1.onmessage = (event) => resolve(event.data);
  });
  // pythonUsed: the calculators' worker ran in this visit, so the service worker keeps
  // the Python it fetched (most of it from the HTTP cache), even if that was before the
  // service worker controlled the page.
  const pythonUsed = Boolean(window.rulesCoreWorker);
  /** @type {OfflineRequest} */
  const request = { type, page: location.href, keep: !savingData(), pythonUsed };
  /** @type {ServiceWorker} */ (registration.active).postMessage(request, [
    channel.port2,
  ]);
  return reply;
}

async function refreshStatus() {
  if (!savingData() && !document.getElementById("offline-status")) {
    showStatus({ storing: true });
  }
  showStatus(await ask("STATUS"));
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
      refreshStatus();
      for (const change of ["online", "offline"]) window.addEventListener(change, refreshStatus);
      // Once the calculators' worker has loaded Python, the service worker keeps those
      // very files (from the HTTP cache where it kept them).
      document.addEventListener("calculators-settled", refreshStatus);
      // Material's instant navigation swaps the page without loading this script again.
      if (window.document$) window.document$.subscribe(() => refreshStatus());
    },
    (error) => console.warn("The site cannot be kept for offline use:", error),
  );
}

// The footer line: "Ready offline" and the calculators' button, replaced on each reply.
/** @param {Said} status */
function showStatus(status) {
  if (!status || status.error) return;
  const footer = document.querySelector(".md-footer-meta__inner");
  if (!footer) return;
  let line = document.getElementById("offline-status");
  if (!line) {
    line = document.createElement("div");
    line.id = "offline-status";
    line.className = "offline-status";
    footer.append(line);
  }
  const parts = [];
  const note = document.createElement("span");
  if (status.storing) {
    note.textContent = "Storing the site for offline use…";
    line.replaceChildren(note);
    return;
  }
  if (status.shell && status.pages && status.storedPages === status.pages) {
    note.className = "offline-status__ready";
    note.textContent = `Ready offline: every page (${status.pages}) and the search`;
  } else if (savingData()) {
    note.textContent = `Saving data: ${status.storedPages} of ${status.pages} pages kept offline, as you read them`;
  } else {
    note.textContent = `Offline: ${status.storedPages} of ${status.pages} pages stored`;
  }
  parts.push(note);
  if (status.python) {
    const done = document.createElement("span");
    done.className = "offline-status__python";
    done.textContent = "Calculators available offline";
    parts.push(done);
  } else {
    parts.push(pythonButton(status.pythonBytes));
  }
  line.replaceChildren(...parts);
}

/** @param {number | undefined} bytes */
function pythonButton(bytes) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "offline-status__python-button";
  const label = `Make the calculators available offline (${(/** @type {number} */ (bytes) / 1e6).toFixed(1)} MB)`;
  // Offline, the offer says what it needs (and says it again once connected).
  button.textContent = navigator.onLine ? label : `${label}: needs a connection`;
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.textContent = "Downloading the calculators…";
    const status = await ask("KEEP_PYTHON");
    if (status.error) {
      button.disabled = false;
      button.textContent = `${label}: the download failed, try again`;
    } else showStatus(status);
  });
  return button;
}

/** @param {() => void} onReload */
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
