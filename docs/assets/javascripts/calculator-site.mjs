// The calculators of a page of this site: calculator-loader.mjs calls bind() for each page
// Material's instant navigation shows, and connects the page to the worker
// (calculator-client.mjs), which serves the whole visit. Each widget is bound to its form
// (calculator-widget.mjs, compare-widget.mjs); here, what a page of the site adds around
// them: the inputs of every widget of the page in its address (calculator-address.mjs),
// the party kept on this device (party.mjs), each answer docked at the foot of a phone's
// screen (calculator-dock.mjs), and the snippet that embeds a calculator in another site's
// page (embed-snippet.mjs; an embed page binds its widget itself: embed-page.mjs).

import { recallLastEdit, setAddressSources } from "./calculator-address.mjs";
import { dockAnswer } from "./calculator-dock.mjs";
import { followStart } from "./calculator-status.mjs";
import { Calculator } from "./calculator-widget.mjs";
import { Comparison } from "./compare-widget.mjs";
import { offerEmbeds } from "./embed-snippet.mjs";
import { offerParty } from "./party.mjs";

/** @type {(Calculator | Comparison)[]} */
let current = []; // the widgets of the page on screen
setAddressSources(() => current);

/** @param {Document} page */
export function bind(page) {
  recallLastEdit();
  // Marks are per page; an instant navigation keeps the visit's timeline.
  performance.clearMarks("calc-first-live-result");
  /** @type {NodeListOf<HTMLElement>} */
  const calculators = page.querySelectorAll(".calc[data-calculator]");
  /** @type {NodeListOf<HTMLElement>} */
  const comparisons = page.querySelectorAll(".calc[data-compare]");
  current = [...[...calculators].map((s) => new Calculator(s)), ...[...comparisons].map((s) => new Comparison(s))];
  for (const widget of current) widget.start();
  const siblings = current.filter((widget) => widget instanceof Calculator);
  for (const widget of siblings) {
    widget.siblings = siblings;
    dockAnswer(widget.result, () => widget.goToNamed());
  }
  // The party kept on this device, kept and offered where a calculator takes its numbers.
  offerParty(siblings);
  offerEmbeds(siblings);
  // What the build put in for the widget's code to work is shown (calculators.css).
  for (const widget of current) widget.section.dataset.bound = "";
  // Each result now says for itself whether it answers the inputs on screen.
  document.documentElement.removeAttribute("data-calc-address");
  followStart(current);
}
