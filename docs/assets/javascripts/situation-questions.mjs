// A situation whose effect depends on another (a prone target: is the attacker within 5
// feet?) asks that question beside its own box. The page marks such a tile with
// data-asks (the names of the situations it depends on, from the rules data); once it is
// ticked, each of those tiles is set just after it, and goes back to its place when no
// ticked tile asks for it. The tiles are moved, never copied: one box per situation.

/** @type {WeakMap<Element, Comment>} */
const homes = new WeakMap(); // a moved tile -> the comment that keeps its place

/** @param {Element} tile */
function situationOf(tile) {
  /** @type {HTMLInputElement | null} */
  const box = tile.querySelector("[data-situation]");
  return box?.dataset.situation;
}

/**
 * @param {Element} block
 * @param {string | undefined} systems
 */
function tilesOf(block, systems) {
  /** @type {NodeListOf<HTMLElement>} */
  const tiles = block.querySelectorAll(".calc-check[data-systems]");
  return [...tiles].filter(
    (tile) => tile.dataset.systems === systems,
  );
}

/** @param {Element} block */
export function placeQuestions(block) {
  /** @type {Map<Element, Element[]>} */
  const asked = new Map(); // a ticked asking tile -> the tiles it asks for, in page order
  /** @type {Set<Element>} */
  const placed = new Set();
  /** @type {NodeListOf<HTMLElement>} */
  const askingTiles = block.querySelectorAll(".calc-check[data-asks]");
  for (const asking of askingTiles) {
    /** @type {HTMLInputElement | null} */
    const box = asking.querySelector("[data-situation]");
    if (!box?.checked) continue;
    const names = /** @type {string} */ (asking.dataset.asks).split(" ");
    // Within its own field: a fight has one situations field per side.
    const field = asking.closest(".calc-field") ?? block;
    const tiles = tilesOf(field, asking.dataset.systems).filter(
      (tile) => tile !== asking && !placed.has(tile) && names.includes(/** @type {string} */ (situationOf(tile))),
    );
    tiles.forEach((tile) => placed.add(tile));
    asked.set(asking, tiles);
  }
  for (const [asking, tiles] of asked) {
    let after = asking;
    for (const tile of tiles) {
      if (!homes.has(tile)) {
        const home = document.createComment("situation");
        tile.before(home);
        homes.set(tile, home);
      }
      if (after.nextElementSibling !== tile) after.after(tile);
      tile.classList.add("calc-check--asked");
      after = tile;
    }
  }
  for (const tile of block.querySelectorAll(".calc-check--asked")) {
    if (placed.has(tile)) continue;
    homes.get(tile)?.replaceWith(tile);
    homes.delete(tile);
    tile.classList.remove("calc-check--asked");
  }
}
