// The answer docked at the foot of a phone's screen (calculators.css): fitted to a quarter
// of the screen, and where what the reader sees starts and ends around it and the site's
// header.

// The docked answer never takes more than a quarter of the screen below the header: where
// its words would (text at 200 %, a phone on its side, a long fight's answer) it becomes its
// figures alone (calculators.css, calc-headline--line), wrapped between its parts, never
// inside one, and, past its first two (a fight's two sides' chances), without the last
// parts that do not fit, each dropped whole; a tap opens the rest. Checked whenever the
// answer, its marks or the screen change. The page's scroll padding follows the dock's
// height, so a field brought into view stops above it.
const DOCK_SHARE = 0.25;
const LINE = "calc-headline--line";
const KEPT_PARTS = 2;
const CUT = "calc-cut"; // a part left out of the dock, and the dot before it
// Where Python could not start, what to do takes the dock's place (calculators.css): too
// long for a quarter of the screen, it stays in its place under the form, whole.
const UNDOCKED = "calc-status--undocked";

/** @param {HTMLElement} result */
export function fitDock(result) {
  const room = innerHeight - headerBottom();
  /** @type {HTMLElement | null | undefined} */
  const status = result.parentElement?.querySelector(":scope > .calc-status");
  if (status) {
    status.classList.remove(UNDOCKED);
    if (status.offsetHeight > DOCK_SHARE * room) status.classList.add(UNDOCKED);
  }
  /** @type {HTMLElement | null} */
  const headline = result.querySelector(".calc-headline");
  if (!headline) return;
  headline.classList.remove(LINE);
  for (const cut of headline.querySelectorAll(`.${CUT}`)) cut.classList.remove(CUT);
  if (headline.offsetHeight > DOCK_SHARE * room) {
    headline.classList.add(LINE);
    const parts = headline.querySelectorAll(":scope > .calc-part");
    for (let last = parts.length - 1; last >= KEPT_PARTS && headline.offsetHeight > DOCK_SHARE * room; last--) {
      parts[last].classList.add(CUT);
      parts[last].previousElementSibling?.classList.add(CUT);
    }
  }
  /** @type {NodeListOf<HTMLElement>} */
  const headlines = document.querySelectorAll(".calc-headline");
  const docked = [...headlines]
    .filter((each) => getComputedStyle(each).bottom === "0px")
    .map((each) => each.offsetHeight);
  const height = docked.length ? Math.max(...docked) : 0;
  document.documentElement.style.setProperty("--calc-dock-height", `${height}px`);
}

/** @param {HTMLElement} result */
function keepDockFitted(result) {
  let pending = 0;
  const fit = () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      if (result.isConnected) return fitDock(result);
      removeEventListener("resize", fit); // the page was left (instant navigation)
      watcher.disconnect();
    });
  };
  // The classes it sets itself are no change: the answer's words and marks are, and the
  // widget's (its status, a failed start).
  const section = /** @type {HTMLElement} */ (result.parentElement);
  const watcher = new MutationObserver((changes) => {
    /** @param {MutationRecord} change */
    const marks = (change) =>
      change.attributeName !== "class" || change.target === result || change.target === section;
    if (changes.some(marks)) fit();
  });
  watcher.observe(section, {
    childList: true,
    subtree: true,
    characterData: true,
    attributes: true,
    attributeFilter: ["class", "data-progress", "data-reason"],
  });
  addEventListener("resize", fit);
  fit();
}

// A calculator's answer docked: fitted whenever it changes, and a tap on its headline goes to
// the field it names, where it names one (goToNamed() says whether it did: a refusal, a
// question not yet complete), else brings the rest of the answer into view, where there is
// one for these inputs.
/**
 * @param {HTMLElement} result
 * @param {() => boolean} goToNamed
 */
export function dockAnswer(result, goToNamed) {
  keepDockFitted(result);
  /** @returns {HTMLElement | null} */
  const headline = () => result.querySelector(".calc-headline");
  result.addEventListener("click", (event) => {
    const docked = headline();
    const details = /** @type {HTMLElement | null | undefined} */ (docked?.nextElementSibling);
    const target = /** @type {Element} */ (event.target);
    if (!docked?.contains(target) || target.closest("a")) return;
    if (goToNamed()) return;
    // The rest of an answer to other inputs is hidden (a shared link's, before Python's
    // answer), or not about the question (one not yet complete): nothing to bring.
    const unasked = result.matches(".calc-result--unasked, .calc-result--incomplete");
    if (details && !unasked) {
      // Scrolled to, the answer sticks at the top (at its own `top`, below Material's
      // header) and covers as much as its height, which grows with its words (three lines
      // of figures on a phone): what it opens starts below it, never under it.
      const stuck = parseFloat(getComputedStyle(docked).top) || 0;
      // The page's own scroll padding (below the header) counts towards it.
      const padded = parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
      details.style.scrollMarginTop = `${stuck + docked.offsetHeight + 8 - padded}px`;
      details.scrollIntoView({ block: "start", behavior: "smooth" });
    }
  });
}

// Where what the reader sees ends: above the answer's headline where it is docked at the
// foot of the screen (on a phone), else at the screen's foot.
/** @param {Element | null | undefined} headline */
export function endAboveDock(headline) {
  const docked = headline?.getBoundingClientRect();
  return docked && docked.bottom >= innerHeight - 1 ? docked.top : innerHeight;
}

// Where what the reader sees starts: below the site's header, which stays on screen.
export function headerBottom() {
  return document.querySelector(".md-header")?.getBoundingClientRect().bottom ?? 0;
}
