// The encounter page's link to the fight takes the party kept for its system.

import { listed, offered, systemOf } from "./party-choices.mjs";
import { MAX_MEMBERS, STATS } from "./party-store.mjs";
import { FIGHT_FORM_ROWS } from "./rules-core-limits.mjs";

const FORM_ROWS = FIGHT_FORM_ROWS; // the fight form's rows (rules-core-limits.mjs)

export class EncounterParty {
  // The encounter's "Fight odds for these monsters" (rules_core/calculators/encounter.py)
  // leaves the party's figures blank, for the fight page to ask for, never the fight form's
  // examples. Where a party is kept on this device for the encounter's system, the link
  // takes it instead: a row a member, the monsters' rows after them, and it says whom. The
  // party is in the fight's address, so the link opens, and a copy of it reproduces, the
  // fight of this party.
  /**
   * @param {Element} section
   * @param {HTMLFormElement} form
   */
  constructor(section, form) {
    this.form = form;
    this.result = section.querySelector(".calc-result");
    if (!this.result) return;
    // Each answer is new markup with the link as Python wrote it: rewritten as it comes.
    new MutationObserver(() => this.rewrite()).observe(this.result, { childList: true, subtree: true });
    this.rewrite();
  }

  rewrite() {
    /** @type {HTMLAnchorElement | null} */
    const link = /** @type {Element} */ (this.result).querySelector("a.calc-fight-link");
    if (!link || link.dataset.party !== undefined) return; // none, or rewritten already
    const members = offered(this.form);
    if (!members.length) return;
    const address = new URL(link.href, location.href);
    const given = new URLSearchParams(address.search);
    const budgeted = Number(given.get("c1_count")); // the characters the budget counted
    const monsters = [];
    for (let row = 1; given.has(`c${row}_count`); row++) {
      if (given.get(`c${row}_side`) !== "opponents" || !(Number(given.get(`c${row}_count`)) >= 1)) continue;
      monsters.push({ side: "opponents", count: given.get(`c${row}_count`) });
    }
    const room = Math.max(MAX_MEMBERS - monsters.length, 0);
    const fighting = members.slice(0, room);
    /** @type {Record<string, string | null | undefined>[]} */
    const rows = [
      ...fighting.map((member) => ({ ...member, side: "party", count: "1", attacks: member.attacks || "1" })),
      ...monsters,
    ];
    const fields = ["side", "count", "name", ...STATS];
    const params = new URLSearchParams({ system: given.get("system") ?? systemOf(this.form) ?? "" });
    rows.forEach((entry, index) => {
      for (const field of fields) params.set(`c${index + 1}_${field}`, entry[field] ?? "");
    });
    for (let row = rows.length + 1; row <= FORM_ROWS; row++) params.set(`c${row}_count`, "0");
    address.search = params.toString();
    link.href = address.href;
    link.dataset.party = "kept";
    const names = listed(fighting.map((member) => member.name));
    link.textContent = `Fight odds for these monsters against ${names} (the party kept on this device)`;
    const note = link.parentElement?.querySelector(".calc-fight-link-note");
    if (!note) return;
    // What differs from the budget above, said beside the link: who is left out, and how
    // many characters the budget counted.
    const said = [];
    if (fighting.length < members.length) {
      said.push(`${members.length - fighting.length} not in it: the fight takes ${MAX_MEMBERS} rows`);
    }
    if (budgeted && budgeted !== fighting.length) said.push(`the budget above is for ${budgeted} characters`);
    said.push("the monsters' attacks and hit points are entered there");
    note.textContent = `(${said.join("; ")})`;
  }
}
