// What a page says when its calculators' code did not arrive (the connection dropped, a
// deploy changed it mid-visit): nothing on the page will compute, however far Python gets.
// Each calculator says so where its answer is read, with the fix, as a Python that could not
// start says it (calculator-status.mjs, which is among what did not arrive); its figures are
// said to be the build's (calculators.css, calc--unbound), out of date once the reader edits.
//
// It imports nothing, and what calls it imports it statically (calculator-loader.mjs on the
// site, embed-page.mjs in an embed) or has it preloaded (embed-boot.js): it is on the device
// whenever what would call it is. calculator-boot.js imports it once the loader's module
// script failed (this module among what may not have arrived): its import is a try too, as
// it is in the calculators' worker, which imports it once one of its own imports failed.

/**
 * Imports what `load` imports, and once more if that failed, before anything says the code
 * did not arrive. A second import fetches anew a module whose fetch failed (a failed fetch
 * is not kept in the module map): a connection that dropped for a moment, or a module fetch
 * the browser gave up on (Chromium aborted one module of the widgets' code, served by the
 * site's service worker, on a returning reader's page), costs no reload. The first failure
 * is said in the console.
 * @template T
 * @param {() => Promise<T>} load
 * @returns {Promise<T>}
 */
export function importWithSecondTry(load) {
  return load().catch((/** @type {unknown} */ reason) => tryAgain(load, reason));
}

/**
 * The second try of `load`, whose first failed for `reason`: said in the console. For a
 * first try made by the page itself (calculator-boot.js: the loader's module script).
 * @template T
 * @param {() => Promise<T>} load
 * @param {unknown} reason
 * @returns {Promise<T>}
 */
export function tryAgain(load, reason) {
  console.warn("The calculators' code failed to load once; trying again:", String(reason));
  return load();
}

/**
 * @param {ParentNode} page
 * @param {unknown} [reason] why the code did not arrive, said in the console for whoever looks
 */
export function codeMissing(page, reason) {
  if (reason !== undefined) console.warn("The calculators' code could not be loaded:", String(reason));
  const unasked = document.documentElement.hasAttribute("data-calc-address");
  /** @type {NodeListOf<HTMLElement>} */
  const sections = page.querySelectorAll(".calc");
  for (const section of sections) {
    const status = section.querySelector(".calc-status");
    const text = status?.querySelector(".calc-status-text");
    if (!status || !text || section.classList.contains("calc--unbound")) continue;
    section.classList.add("calc--failed", "calc--unbound");
    status.classList.remove("calc-status--busy");
    text.textContent =
      "The calculator could not start: its code could not be downloaded. Check the connection, then reload the page." +
      (unasked
        ? " The inputs of this link could not be read, and no figures are shown for them."
        : " The figures shown were computed when the site was built, for the default inputs.");
    const reload = document.createElement("button");
    reload.type = "button";
    reload.className = "calc-retry md-button";
    reload.textContent = "Reload the page";
    reload.addEventListener("click", () => location.reload());
    text.after(reload);
    const results = section.querySelectorAll(".calc-result");
    for (const result of results) result.setAttribute("aria-busy", "false");
    const outOfDate = () => results.forEach((result) => result.classList.add("calc-result--stale"));
    section.addEventListener("input", outOfDate);
    section.addEventListener("change", outOfDate);
  }
}
