// The embed snippet's optional script, for the page that embeds calculators of this site (a
// wiki, a blog, a VTT journal): each embed's frame takes its content's height, as the frame
// says it (embed-protocol.mjs, version 1; README, "Embedding"), so that it never scrolls
// inside. Without it a frame keeps the snippet's height and scrolls.
//
// It hears only messages from this site's origin (the one it is served from), sent by one of
// the page's frames, of the protocol's shape: {type: "open-rules-reference:height",
// version: 1, height: a whole number of CSS pixels up to 100000}; anything else is ignored.
// A height only ever becomes a number in the frame's style. It tells the frames already
// showing an embed that it listens ({type: "open-rules-reference:host", version: 1}), so a
// frame that said its height before this script ran says it again. Pasted once per embed,
// it runs once per page.
(function () {
  var script = /** @type {HTMLScriptElement | null} */ (document.currentScript);
  var HEIGHT = "open-rules-reference:height";
  var HOST = "open-rules-reference:host";
  var MOST = 100000;
  var running = Symbol.for("open-rules-reference:embed-host");
  var host = /** @type {Record<symbol, boolean>} */ (/** @type {unknown} */ (window));
  if (!script || host[running]) return;
  host[running] = true;
  var origin = new URL(script.src).origin;

  /** @param {MessageEventSource | null} source */
  function frameOf(source) {
    var frames = document.getElementsByTagName("iframe");
    for (var index = 0; index < frames.length; index++) {
      if (source && frames[index].contentWindow === source) return frames[index];
    }
    return null;
  }

  addEventListener("message", function (event) {
    if (event.origin !== origin) return;
    var data = event.data;
    if (typeof data !== "object" || data === null || data.type !== HEIGHT || data.version !== 1) return;
    var height = data.height;
    if (typeof height !== "number" || !Number.isInteger(height) || height < 0 || height > MOST) return;
    var frame = frameOf(event.source);
    if (frame) frame.style.height = height + "px";
  });

  var frames = document.getElementsByTagName("iframe");
  for (var index = 0; index < frames.length; index++) {
    var shown = frames[index].contentWindow;
    if (frames[index].src.indexOf(origin + "/") !== 0 || !shown || sameOrigin(shown)) continue;
    // To this site's page only: a frame that shows another by now is not told.
    shown.postMessage({ type: HOST, version: 1 }, origin);
  }

  // A frame still loading shows a blank page of this page's own origin: it is not told (one
  // that loads later says its height itself), and the browser warns of no message refused.
  /** @param {Window} shown */
  function sameOrigin(shown) {
    try {
      return shown.location.href !== undefined;
    } catch (error) {
      return false;
    }
  }
})();
