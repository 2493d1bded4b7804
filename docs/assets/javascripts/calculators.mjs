// Calculator pages: keep every input in the address, send it to the rules core running
// in a worker, and show its answer. The page already shows the build-time answer for the
// default inputs; the live answer replaces it once Python is ready.
//
// Safety: inputs only ever become text (form values, URL parameters, textContent). The
// result markup comes from rules_core.web, which escapes everything it was given.

const widgets = [...document.querySelectorAll(".calc[data-calculator]")];

if (widgets.length) {
  // calculator-boot.js, in the page's head, has usually started the worker already.
  const booted = window.rulesCoreWorker;
  const worker =
    booted?.worker ??
    new Worker(new URL("./calculator-worker.mjs", import.meta.url), { type: "module" });
  const base = siteBase();
  const pending = new Map(); // request id -> widget
  const latest = new Map(); // widget -> id of its newest request
  let nextId = 1;
  let ready = false;
  let editing = false; // the current history entry holds an edit not yet committed
  let shownLive = false;

  setStatus("Loading the calculator…", true);
  // Each result stays busy until Python's first answer for it arrives.
  for (const widget of widgets) widget.querySelector(".calc-result").setAttribute("aria-busy", "true");

  worker.onmessage = onMessage;

  function onMessage({ data }) {
    if (data.ready) {
      ready = true;
      setStatus("", false);
      widgets.forEach((widget) => compute(widget));
      settled();
      return;
    }
    if (data.failed && data.id === undefined) {
      setStatus("The calculator could not start: " + data.failed, false);
      widgets.forEach(answered); // no Python: the build-time results are final
      settled();
      return;
    }
    const widget = pending.get(data.id);
    pending.delete(data.id);
    if (!widget || latest.get(widget) !== data.id) return; // a newer request is on its way
    if (data.failed) {
      statusOf(widget).textContent = "The calculation failed: " + data.failed;
      answered(widget);
      return;
    }
    show(widget, JSON.parse(data.response));
  }

  widgets.forEach((widget) => {
    const form = widget.querySelector("form");
    form.addEventListener("submit", (event) => event.preventDefault());
    form.addEventListener("input", (event) => onEdit(widget, event, false));
    form.addEventListener("change", (event) => onEdit(widget, event, true));
    const roll = widget.querySelector(".calc-roll");
    if (roll) roll.addEventListener("click", () => compute(widget, { rolled: "on" }));
  });
  applyAddress();
  for (const event of booted?.early ?? []) onMessage(event); // e.g. "ready", already sent
  window.addEventListener("popstate", () => {
    editing = false;
    applyAddress();
    widgets.forEach((widget) => compute(widget));
  });

  function onEdit(widget, event, committed) {
    const name = event.target.name || (event.target.dataset.situation ? "situations" : "");
    if (event.target.dataset.situation !== undefined) collectSituations(widget);
    if (name === "system") showFieldsFor(widget);
    // Widgets on one page share a field of the same name (the system, on the abilities page).
    widgets.forEach((other) => {
      if (other === widget || !name) return;
      const twin = other.querySelector(named(name));
      if (twin && twin.value !== event.target.value) {
        twin.value = event.target.value;
        if (name === "system") showFieldsFor(other);
        compute(other);
      }
    });
    compute(widget); // first: Python works on it while the address is written
    writeAddress(committed);
  }

  function inputs(widget) {
    const values = {};
    for (const field of widget.querySelectorAll(".calc-field")) {
      if (field.hidden) continue;
      const control = field.querySelector("[name]");
      if (!control) continue;
      values[control.name] = control.type === "checkbox" ? (control.checked ? "on" : "") : control.value;
    }
    return values;
  }

  function compute(widget, extra = {}) {
    if (!ready) {
      widget.querySelector(".calc-result").classList.toggle("calc-result--stale", !isDefault(widget));
      return;
    }
    const id = nextId++;
    pending.set(id, widget);
    latest.set(widget, id);
    const request = JSON.stringify({
      calculator: widget.dataset.calculator,
      inputs: { ...inputs(widget), ...extra },
      base,
    });
    worker.postMessage({ id, request });
  }

  function show(widget, response) {
    answered(widget);
    for (const message of widget.querySelectorAll(".calc-error")) message.textContent = "";
    for (const control of widget.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    const result = widget.querySelector(".calc-result");
    if (!response.ok) {
      // The last good result stays visible; each message sits next to its field.
      for (const [name, message] of Object.entries(response.errors || {})) {
        const control = widget.querySelector(named(name));
        const slot = control && widget.querySelector("#" + CSS.escape(`${control.id}-error`));
        if (slot) slot.textContent = message;
        if (control) control.setAttribute("aria-invalid", "true");
      }
      if (response.message) statusOf(widget).textContent = response.message;
      result.classList.add("calc-result--stale");
      return;
    }
    statusOf(widget).textContent = "";
    // A table of the chart the reader opened stays open through the new answer.
    const open = [...result.querySelectorAll("details")].map((details) => details.open);
    result.innerHTML = response.html;
    result.querySelectorAll("details").forEach((details, index) => (details.open ||= open[index]));
    wrapTables(result);
    result.classList.remove("calc-result--stale");
    if (!shownLive) {
      shownLive = true;
      // When Python first answered on this page (User Timing; the benchmark reads it).
      performance.mark("calc-first-live-result");
    }
  }

  function showFieldsFor(widget) {
    const system = widget.querySelector('[name="system"]')?.value;
    for (const element of widget.querySelectorAll("[data-systems]")) {
      element.hidden = system !== undefined && !element.dataset.systems.split(" ").includes(system);
    }
    collectSituations(widget);
  }

  function collectSituations(widget) {
    const hidden = widget.querySelector('input[type="hidden"][name="situations"]');
    if (!hidden) return;
    hidden.value = [...widget.querySelectorAll("[data-situation]")]
      .filter((box) => box.checked && !box.closest("[data-systems]").hidden)
      .map((box) => box.dataset.situation)
      .join(",");
  }

  function isDefault(widget) {
    return [...widget.querySelectorAll("[name]")].every((control) =>
      control.type === "checkbox" ? control.checked === control.defaultChecked
        : control.tagName === "SELECT" ? [...control.options].every((o) => o.selected === o.defaultSelected)
        : control.value === control.defaultValue,
    );
  }

  function writeAddress(committed) {
    const params = new URLSearchParams();
    for (const widget of widgets) {
      for (const [name, value] of Object.entries(inputs(widget))) {
        const control = widget.querySelector(named(name));
        const initial = control.type === "checkbox" ? (control.defaultChecked ? "on" : "")
          : control.tagName === "SELECT" ? [...control.options].find((o) => o.defaultSelected)?.value
          : control.defaultValue;
        if (value !== initial) params.set(name, value);
      }
    }
    const query = params.toString();
    const url = location.pathname + (query ? "?" + query : "") + location.hash;
    if (url !== location.pathname + location.search + location.hash) {
      // The first edit after a committed one gets its own history entry; typing
      // updates that entry, and a change (enter, blur, a pick) commits it.
      if (editing) history.replaceState(null, "", url);
      else history.pushState(null, "", url);
      editing = true;
    }
    if (committed) editing = false;
  }

  function applyAddress() {
    const params = new URLSearchParams(location.search);
    for (const widget of widgets) {
      for (const control of widget.querySelectorAll("[name]")) {
        const value = params.get(control.name);
        if (control.type === "checkbox") control.checked = value === null ? control.defaultChecked : value === "on";
        else if (control.tagName === "SELECT") {
          const known = [...control.options].some((option) => option.value === value);
          control.value = known ? value : [...control.options].find((o) => o.defaultSelected)?.value;
        } else control.value = value === null ? control.defaultValue : value;
      }
      const situations = (params.get("situations") || "").split(",");
      for (const box of widget.querySelectorAll("[data-situation]")) {
        box.checked = situations.includes(box.dataset.situation);
      }
      showFieldsFor(widget);
      widget.querySelector(".calc-result").classList.toggle("calc-result--stale", !isDefault(widget));
    }
  }

  function settled() {
    // offline.mjs waits for this before it precaches the site beside Python's download.
    document.documentElement.dataset.calculators = "settled";
    document.dispatchEvent(new Event("calculators-settled"));
  }

  function named(name) {
    // A selector for a control by name; the name is quoted as a CSS string, never markup.
    return `[name="${CSS.escape(name)}"]`;
  }

  function statusOf(widget) {
    return widget.querySelector(".calc-status-text");
  }

  function setStatus(text, busy) {
    for (const widget of widgets) {
      const status = widget.querySelector(".calc-status");
      status.classList.toggle("calc-status--busy", busy);
      if (text || !busy) statusOf(widget).textContent = text;
    }
  }

  function answered(widget) {
    widget.querySelector(".calc-result").setAttribute("aria-busy", "false");
  }

  function wrapTables(result) {
    // Material wraps the tables of a page in a scroll container once, when it loads; a
    // live result is new markup, so it gets the same wrapper, or the result would shift
    // when the live answer replaces the build-time one.
    for (const table of result.querySelectorAll("table:not([class])")) {
      const scroll = document.createElement("div");
      scroll.className = "md-typeset__scrollwrap";
      const inner = document.createElement("div");
      inner.className = "md-typeset__table";
      table.replaceWith(scroll);
      scroll.append(inner);
      inner.append(table);
    }
  }

  function siteBase() {
    // Material writes the site root, relative to this page, into its config block.
    const config = document.getElementById("__config");
    const root = config ? JSON.parse(config.textContent).base : ".";
    return root.endsWith("/") ? root : root + "/";
  }
}
