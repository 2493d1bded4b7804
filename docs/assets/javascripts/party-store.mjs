// The party kept on this device (see party.mjs): read back, checked, and written.
//
// Kept in localStorage as one small versioned JSON: {"version": 1, "members": [...]}, each
// member {name, system, bonus, damage, defense, hp, attacks} as the fight's fields hold them
// (strings), and, once typed on the checks page for that member, its check and save
// bonuses {check, save} (strings; a member without them is as valid). An entry that is not
// that, corrupt or of another version, is ignored: the pages work as if nothing were kept.
// Nothing is sent anywhere.
//
// A member's numbers are those of one game system, the fight form's when its row was kept
// (its `system`, the select's value): a page offers only the members kept for the system its
// own form has chosen, follows a change of that choice, and says in one line which systems
// (by the select's own titles) the party is kept for when none of it is for this one. A
// member kept before members had a system has none, and is offered for every system, as it
// was: no system is guessed for it. A member whose system is none of the form's (one since
// taken off the site) is not offered there, and not dropped either: only "Forget" removes it.

import { FIGHT_MAX_ROWS, NAME_LENGTH, VALUE_LENGTH } from "./rules-core-limits.mjs";

/**
 * @typedef {object} Member One member of the party kept, as the fight's fields hold it.
 * @property {string} name
 * @property {string} [system] The form's system when its row was kept (none: kept before
 *   members had one, offered for every system).
 * @property {string} bonus
 * @property {string} damage
 * @property {string} defense
 * @property {string} hp
 * @property {string} attacks
 * @property {string} [check] Kept by the checks page, once typed there.
 * @property {string} [save] Kept by the checks page, once typed there.
 */

const STORE = "orr-party";
const VERSION = 1;
export const STATS = /** @type {const} */ (["bonus", "damage", "defense", "hp", "attacks"]);
/** @typedef {typeof STATS[number]} Stat */
export const ROLLS = /** @type {const} */ (["check", "save"]); // kept by the checks page, each only once typed there
/** @typedef {typeof ROLLS[number]} Roll */
// The fight's most rows, its name field's and any field's longest value are the rules
// core's (rules-core-limits.mjs, written from the Python): the most offered for one system.
export const MAX_MEMBERS = FIGHT_MAX_ROWS;
const MAX_KEPT = 10 * MAX_MEMBERS; // the most read back, every system's together
const SYSTEM_LENGTH = 64; // a system's value in the form's select (a slug)

/** @returns {Member[]} */
export function keptParty() {
  // The members kept, every system's, or none when nothing usable is kept.
  /** @type {any} what storage holds, checked below before any of it is used */
  let kept;
  try {
    kept = JSON.parse(/** @type {string} */ (localStorage.getItem(STORE)));
  } catch {
    return []; // storage refused (private mode) or not JSON
  }
  if (!kept || kept.version !== VERSION || !Array.isArray(kept.members)) return [];
  const text = (/** @type {unknown} */ value) => typeof value === "string" && value.length <= VALUE_LENGTH;
  const usable = (/** @type {any} */ member) =>
    member && typeof member === "object" &&
    typeof member.name === "string" && member.name.trim() !== "" &&
    member.name.length <= NAME_LENGTH &&
    STATS.every((stat) => text(member[stat])) &&
    ROLLS.every((roll) => member[roll] === undefined || text(member[roll])) &&
    (member.system === undefined ||
      (typeof member.system === "string" && member.system !== "" &&
        member.system.length <= SYSTEM_LENGTH));
  if (!kept.members.every(usable)) return [];
  return kept.members.slice(0, MAX_KEPT).map((/** @type {Member} */ member) => ({
    name: member.name.trim(),
    ...(member.system === undefined ? {} : { system: member.system }),
    ...Object.fromEntries(STATS.map((stat) => [stat, member[stat]])),
    ...rollsOf(member),
  }));
}

/**
 * @param {Member} member
 * @param {string | undefined} system
 */
export function forSystem(member, system) {
  // Kept for that system, or kept before members had one (then for any).
  return member.system === undefined || member.system === system;
}

/**
 * @param {Partial<Member>} member
 * @returns {{check?: string, save?: string}}
 */
export function rollsOf(member) {
  // The check and save bonuses kept for a member: those typed (an empty one is none).
  const typed = ROLLS.filter((roll) => member[roll]);
  return Object.fromEntries(typed.map((roll) => [roll, member[roll]]));
}

/** @param {Member[]} members */
export function keep(members) {
  try {
    if (members.length) {
      localStorage.setItem(STORE, JSON.stringify({ version: VERSION, members }));
    } else {
      localStorage.removeItem(STORE);
    }
  } catch {
    // Storage refused (private mode, quota): the party is simply not kept.
  }
}
