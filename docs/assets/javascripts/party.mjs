// The party kept on this device: the named party rows a game master enters on the fight
// page, offered as one-tap choices where a calculator takes the same numbers (the attack
// calculator's attacker and target, the fight's party rows, the checks calculator's roller).
//
// Kept by party-store.mjs, offered by one module per page: party-fight.mjs (the fight keeps
// it and fills its rows from it), party-attack.mjs, party-checks.mjs and
// party-encounter.mjs; party-choices.mjs is what they share.
//
// Safety: names are only ever text (textContent, form values), never markup.

import { AttackChoices } from "./party-attack.mjs";
import { CheckChoices } from "./party-checks.mjs";
import { EncounterParty } from "./party-encounter.mjs";
import { FightParty } from "./party-fight.mjs";

/**
 * @typedef {{name: string, form: HTMLFormElement, section: Element}} Widget A calculator
 *   bound by calculator-widget.mjs.
 */

// Each widget on the page ({name, form, section}, the calculators calculator-site.mjs bound):
// the fight keeps and offers the party, the attack calculator offers it, and the checks
// calculator offers its members as who rolls, each only the members of its form's system.
// A fight row holds no check or save bonus, and a wrong number filled in would be worse
// than none: the checks page fills only a bonus typed there for that member and that roll,
// and otherwise says so beside the Bonus field.
/** @param {Iterable<Widget>} widgets */
export function offerParty(widgets) {
  for (const widget of widgets) {
    if (widget.name === "fight") new FightParty(widget.section, widget.form);
    else if (widget.name === "attack") new AttackChoices(widget.section, widget.form);
    else if (widget.name === "check") new CheckChoices(widget.section, widget.form);
    else if (widget.name === "encounter") new EncounterParty(widget.section, widget.form);
  }
}
