// A widget's form as the build wrote it (hooks/pages/calculators.py, hooks/pages/compare.py):
// which widgets run Python, each control's value as built, a control found by its name.
// The loader reads it on every page, before the widgets' own code has arrived.

// The widgets that run Python: calculators and Compare answers.
export const PYTHON_WIDGETS = ".calc[data-calculator], .calc[data-compare]";

/** @typedef {HTMLInputElement | HTMLSelectElement} Control A field's control in a widget's form. */

// A control's value as the page was built.
/**
 * @param {Control} control
 * @returns {string | undefined} undefined only for a select without options
 */
export function initialValue(control) {
  if (control instanceof HTMLSelectElement) {
    return ([...control.options].find((option) => option.defaultSelected) ?? control.options[0])?.value;
  }
  if (control.type === "checkbox") return control.defaultChecked ? "on" : "";
  if (control.type === "hidden") return ""; // the situations: no box ticked
  return control.defaultValue;
}

/** @param {string} name */
export function named(name) {
  // A selector for a control by name; the name is quoted as a CSS string, never markup.
  return `[name="${CSS.escape(name)}"]`;
}
