// Several embeds on one page of another site share one Python: one download, one start.
//
// A browser keeps a frame of another site apart by the site in its address bar (its storage,
// caches and workers: Chromium since 115, Firefox, Safari), so the Python a reader's phone
// downloaded on this site is not there for an embed on a blog; but the embeds on one host
// page (and on its other tabs) share one such partition. Within it, one frame, the leader,
// runs the calculators' worker (calculator-worker.mjs) for them all: the frame that holds a
// Web Lock named after the build's Python bundle. The others reach that worker over a
// BroadcastChannel of the same name, which only this site's frames of the partition hear.
// Each frame's calculator-client.mjs holds a SharedPython as its worker (pythonWorker()): what
// it posts goes to the leader under its frame's id; the leader gives each request an id of
// its own for the worker, and hands the reply back to the frame that asked, under that
// frame's id. What every frame needs to hear (how far Python has got, that it is ready, or
// why it could not start) is said to all of them, and to a frame that joins later as it
// joins. Python that stops while answering is started again by the leader at once, with the
// requests of every frame still unanswered; a start tried again ("Try again") is the
// leader's to make. When the leader's frame goes (the host page removed it), the lock passes
// to another frame, which starts Python again, and each frame asks again what it had asked
// and not been answered.
//
// Where the browser lacks Web Locks (before Chrome 69, Firefox 96, Safari 15.4) or
// BroadcastChannel (before Safari 15.4), or refuses a frame of another site its locks (it
// keeps no storage for one: third-party cookies blocked, a private window), or the page is
// no secure context, each frame has a worker of its own, as a page of the site does.
//
// The channel's messages come only from frames of this site, and are checked for their
// shape all the same (toLeader, toFrame); the worker checks what it is sent (toWorker).

/**
 * @typedef {import("./calculator-worker.mjs").ToWorker} ToWorker
 * @typedef {import("./calculator-worker.mjs").FromWorker} FromWorker
 * @typedef {import("./calculator-worker.mjs").Ask} Ask
 * @typedef {{from: string, hello: true, retry: boolean, afresh: boolean}} Hello A frame's
 *   client has a new worker: how is Python? `retry`: it is started again after a failure
 *   (or a stop); `afresh`: past the HTTP cache, after a damaged download.
 * @typedef {{from: string, message: ToWorker}} Relayed What a frame's client posts.
 * @typedef {Hello | Relayed} ToLeader
 * @typedef {{to: string, message: FromWorker}} ToFrame To one frame ("": to all).
 * @typedef {{leader: string}} NewLeader A frame now leads: ask again.
 */

const WORKER = new URL("./calculator-worker.mjs", import.meta.url);

/**
 * A worker for calculator-client.mjs (its makeWorkersWith): shared with the frames of this
 * site on the same host page where the browser allows, else the frame's own.
 * @param {string} name the worker's name: the bundle, and " afresh" after a damaged download
 * @returns {Worker}
 */
export function pythonWorker(name) {
  const [bundle, afresh] = name.split(" ");
  let seat = seats.get(bundle);
  if (!seat) {
    const shared = isSecureContext && "locks" in navigator && typeof BroadcastChannel === "function";
    seat = new Seat(bundle, shared);
    seats.set(bundle, seat);
  }
  return /** @type {Worker} */ (/** @type {unknown} */ (new SharedPython(seat, Boolean(afresh))));
}

/** @type {Map<string, Seat>} */
const seats = new Map(); // the bundle -> this frame's place among the frames sharing its Python

// What the client holds as its worker: posts to the leader, hears what the leader says to
// this frame. It keeps what it asked until answered, to ask it again of a new leader.
class SharedPython {
  /**
   * @param {Seat} seat
   * @param {boolean} afresh
   */
  constructor(seat, afresh) {
    this.seat = seat;
    /** @type {((event: {data: FromWorker}) => void) | null} */
    this.onmessage = null;
    /** @type {((event: ErrorEvent) => void) | null} */
    this.onerror = null; // never called: the leader starts a Python that stopped again
    /** @type {Map<number, Ask>} */
    this.asked = new Map();
    /** @type {Set<string>} */
    this.prepared = new Set();
    this.retry = seat.users > 0; // this frame's client had a worker before
    this.afresh = afresh;
    seat.join(this);
  }

  /** @param {ToWorker} message */
  postMessage(message) {
    if ("prepare" in message) message.prepare.forEach((name) => this.prepared.add(name));
    else if ("withdraw" in message) this.asked.delete(message.withdraw);
    else this.asked.set(message.id, message);
    this.seat.toLeader({ from: this.seat.frame, message });
  }

  terminate() {
    this.seat.leave(this);
  }

  // To the leader: that this worker begins, and what it has asked and not been answered.
  askAgain() {
    const from = this.seat.frame;
    this.seat.toLeader({ from, hello: true, retry: this.retry, afresh: this.afresh });
    if (this.prepared.size) this.seat.toLeader({ from, message: { prepare: [...this.prepared] } });
    for (const ask of this.asked.values()) this.seat.toLeader({ from, message: ask });
  }

  /** @param {FromWorker} message */
  hear(message) {
    if ("id" in message && !("progress" in message)) this.asked.delete(message.id);
    // Never within the client's own call: it listens once it has made this worker.
    queueMicrotask(() => this.onmessage?.({ data: message }));
  }
}

// This frame's place among the frames sharing one bundle's Python: its id, the channel, and
// the leader's relay once it leads.
class Seat {
  /**
   * @param {string} bundle
   * @param {boolean} shared whether the browser has what sharing takes
   */
  constructor(bundle, shared) {
    this.bundle = bundle;
    this.frame = shared ? crypto.randomUUID() : "";
    /** @type {SharedPython | null} */
    this.user = null; // the client's worker
    this.users = 0; // how many it has had
    /** @type {Relay | null} */
    this.relay = null;
    const name = `open-rules-reference:python:${bundle}`;
    // None where this frame has Python to itself, and hears no other.
    this.channel = shared ? new BroadcastChannel(name) : null;
    if (!this.channel) {
      this.lead();
      return;
    }
    this.channel.onmessage = ({ data }) => this.heard(data);
    const forever = () => new Promise(() => {}); // the lock is held as long as the frame lives
    navigator.locks
      .request(name, { ifAvailable: true }, (lock) => {
        if (lock) return this.lead().then(forever);
        // Another frame leads: this one waits to take over, should that frame go.
        navigator.locks.request(name, () => this.lead().then(forever));
        return null;
      })
      .catch(() => {
        // Locks refused: a browser that keeps no storage for a frame of another site (one
        // that blocks third-party cookies, or a private window). This frame has Python to
        // itself, and hears no other.
        this.channel?.close();
        this.channel = null;
        this.lead();
      });
  }

  /** @param {SharedPython} user */
  join(user) {
    this.user = user;
    this.users += 1;
    user.askAgain();
  }

  /** @param {SharedPython} user */
  leave(user) {
    if (this.user === user) this.user = null;
  }

  async lead() {
    this.relay = new Relay(this);
    this.channel?.postMessage(/** @type {NewLeader} */ ({ leader: this.frame }));
    this.user?.askAgain();
  }

  /** @param {ToLeader} message */
  toLeader(message) {
    if (this.relay) this.relay.heard(message);
    else this.channel?.postMessage(message);
  }

  /**
   * From the leader's relay: to this frame, another, or all ("").
   * @param {string} to
   * @param {FromWorker} message
   */
  tell(to, message) {
    if (to === this.frame || to === "") this.user?.hear(message);
    if (to !== this.frame) this.channel?.postMessage(/** @type {ToFrame} */ ({ to, message }));
  }

  /** @param {unknown} data a message of the channel */
  heard(data) {
    if (typeof data !== "object" || data === null) return;
    const message = /** @type {Record<string, unknown>} */ (data);
    if (typeof message.leader === "string") this.user?.askAgain();
    else if (typeof message.to === "string") {
      if ((message.to === this.frame || message.to === "") && typeof message.message === "object") {
        this.user?.hear(/** @type {FromWorker} */ (message.message));
      }
    } else if (this.relay && typeof message.from === "string") this.relay.heard(/** @type {ToLeader} */ (data));
  }
}

// The leader's: the worker, and which frame asked each request it works.
class Relay {
  /** @param {Seat} seat */
  constructor(seat) {
    this.seat = seat;
    /** @type {Worker | null} */
    this.worker = null;
    /** @type {FromWorker | null} how Python is: the last of loading, ready or failed */
    this.state = null;
    /** @type {Map<number, {from: string, id: number, request: string}>} */
    this.requests = new Map(); // the worker's id -> the frame's
    /** @type {Map<string, number>} */
    this.ids = new Map(); // "frame id" -> the worker's id
    this.nextId = 1;
    /** @type {Set<string>} */
    this.prepared = new Set();
    this.start(seat.bundle);
  }

  // Python, started (again): every request still unanswered is asked of it.
  /** @param {string} name */
  start(name) {
    this.worker?.terminate();
    this.state = null;
    const worker = new Worker(WORKER, { type: "module", name });
    this.worker = worker;
    worker.onmessage = ({ data }) => this.fromWorker(data);
    // An error the worker did not catch: once Python had started, it may answer nothing
    // more, and is started again; before, the worker's own script did not arrive (offline, a
    // failed download), which its start cannot say itself: said here, as a failed download.
    worker.onerror = (event) => {
      if (!this.state || "loading" in this.state) {
        const why = event.message || "the calculators' worker did not arrive";
        this.fromWorker({ failed: `${WORKER.href}: ${why}`, kind: "download" });
      } else if ("ready" in this.state) this.start(this.seat.bundle);
    };
    if (this.prepared.size) worker.postMessage({ prepare: [...this.prepared] });
    for (const [id, { request }] of this.requests) worker.postMessage({ id, request });
  }

  /** @param {ToLeader} message from a frame (this one's too) */
  heard(message) {
    const { from } = message;
    if ("hello" in message) {
      const failed = this.state && "failed" in this.state;
      if (message.retry && failed) this.start(message.afresh ? `${this.seat.bundle} afresh` : this.seat.bundle);
      else if (this.state) this.seat.tell(from, this.state);
      return;
    }
    const sent = message.message;
    if (typeof sent !== "object" || sent === null) return;
    if ("prepare" in sent) {
      const fresh = sent.prepare.filter((name) => !this.prepared.has(name));
      fresh.forEach((name) => this.prepared.add(name));
      if (fresh.length) this.worker?.postMessage({ prepare: fresh });
    } else if ("withdraw" in sent) {
      const id = this.ids.get(`${from} ${sent.withdraw}`);
      if (id === undefined) return;
      this.forget(id);
      this.worker?.postMessage({ withdraw: id });
    } else if (!this.ids.has(`${from} ${sent.id}`)) {
      // Asked again of a leader that has it already (a frame's hello crossed its start): once.
      const id = this.nextId++;
      this.requests.set(id, { from, id: sent.id, request: sent.request });
      this.ids.set(`${from} ${sent.id}`, id);
      this.worker?.postMessage({ id, request: sent.request });
    }
  }

  /** @param {FromWorker} message */
  fromWorker(message) {
    if (!("id" in message)) {
      this.state = message;
      this.seat.tell("", message);
      return;
    }
    const asked = this.requests.get(message.id);
    if (!asked) return;
    if (!("progress" in message)) this.forget(message.id);
    this.seat.tell(asked.from, { ...message, id: asked.id });
    // Python stopped on that request (its frame says so, and never asks it again): started
    // again at once, for every frame's requests.
    if ("died" in message) this.start(this.seat.bundle);
  }

  /** @param {number} id */
  forget(id) {
    const asked = this.requests.get(id);
    if (!asked) return;
    this.requests.delete(id);
    this.ids.delete(`${asked.from} ${asked.id}`);
  }
}
