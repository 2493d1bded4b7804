// The limits the page's code shares with the rules core, written from the Python by
// hooks/package/browser_seam.py: do not edit. `make setup` writes it again, and
// tests/test_browser_seam.py fails where it differs from the Python's.

/** The most combatant rows a fight takes: rules_core/calculators/fight.py, FightRequest.MAX_ROWS. */
export const FIGHT_MAX_ROWS = 12;

/** The combatant rows the fight's form shows: rules_core/calculators/fight.py, FightRequest.FORM_ROWS. */
export const FIGHT_FORM_ROWS = 5;

/** The longest name a combatant may have, in characters: rules_core/calculators/fight.py, NAME_LENGTH. */
export const NAME_LENGTH = 40;

/** The longest value any field takes, in characters: rules_core/fields.py, MAX_INPUT_LENGTH. */
export const VALUE_LENGTH = 200;
