// The types of rules_core.web, written from the Python (rules_core/web.py) by
// hooks/package/browser_seam.py: do not edit. `make setup` writes it again, and
// tests/test_browser_seam.py fails where it differs from what the Python declares.

/** One calculation, as the page's worker sends it to `handle_json` (as JSON). */
export interface Request {
  /** The calculator's name, as rules_core.calculators lists it ("attack"). */
  calculator: string;
  /**
   * The form's values by field name, as the form holds them (a ticked box is "on"); a
   * field left out takes its default.
   */
  inputs?: Record<string, string>;
  /** The way from the page to the site root ("../../"), which the answer's links take. */
  base?: string;
}

/** The question answered: its markup, and the same answer in short. */
export interface Answered {
  ok: true;
  /** The answer as escaped HTML: its headline (`.calc-headline`), then the rest. */
  html: string;
  /**
   * The headline as plain text, for the Compare pages and screen readers: set as text,
   * never parsed.
   */
  summary: string;
  /** Empty: an answer refuses no value. */
  errors: Record<string, string>;
  /**
   * Empty; or, where the system's text does not define what was asked, that it does not
   * (the markup says so too, with what the text does say).
   */
  message: string;
  /**
   * Field name -> a sentence said beside that field with the answer, which it does not
   * hold up (a fight's row left out until it is complete).
   */
  notes?: Record<string, string>;
}

/** The question not answered: what to change, each where it is to be changed. */
export interface Refused {
  ok: false;
  /** Empty. */
  html: string;
  /** Empty. */
  summary: string;
  /** Field name -> why its value is refused, one sentence. */
  errors: Record<string, string>;
  /**
   * What no field holds: the request as a whole (malformed, an unknown calculator), or,
   * `incomplete`, what the question still lacks.
   */
  message: string;
  /** The question is not yet complete (a fight with no opponent yet): not an error. */
  incomplete?: true;
  /** Field name -> what that field would give the question not yet complete. */
  notes?: Record<string, string>;
}

/** What `handle_json` answers a page: one calculation answered or refused. */
export type Answer = Answered | Refused;

/**
 * The worker's entry point: one JSON request (as `handle_json` takes) worked in steps.
 *
 * The worker calls `step()` until it returns True, then reads `response`; between steps
 * it can tell the page how far the work has got (`done` of `total`: a fight's rounds)
 * and let the page's messages in. `stop()` ends work whose question has changed: the
 * rest is never computed. A calculator without steps answers in the first `step()`.
 */
export interface Work {
  /** The steps done so far (a fight: its rounds worked out). */
  readonly done: number;
  /** The steps in all (0 until the work has said). */
  readonly total: number;
  /** The answer, an `Answer` as JSON, once `step()` has returned True; until then empty. */
  readonly response: string;
  /** One step of the work; True once the response is ready. */
  step(): boolean;
  /** End the work where it is: the rest is never computed. */
  stop(): void;
}
