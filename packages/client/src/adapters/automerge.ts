/**
 * @tessera/client/automerge: Automerge documents as Tessera values, merged by Automerge itself.
 * An optional entry (`@automerge/automerge` is an optional peer dependency), and the pattern for
 * plugging any CRDT library in as a resolver:
 *
 * 1. A JSON envelope for the library's state: `{ type: 'tessera.automerge', v: 1, doc }`, the
 *    document's saved bytes in base64 (values are stored as JSON).
 * 2. A merge through the library (every sibling's changes applied to one document), written out
 *    deterministically: the changes in the order of their hashes, so that every client that merges
 *    the same siblings writes the same bytes, and the resolver laws hold on the stored JSON.
 * 3. Updaters that are safe to apply twice: an updater makes its change once (under a fresh
 *    actor) and remembers it. Applied again (update() starting over after a write that may have
 *    landed), it returns a document that holds the change as it is, and replays the same change
 *    onto one that does not: the edit counts once, and a copy of it surfacing later is the same
 *    change. Make one updater per edit.
 * 4. `defineCrdt` for the rest: the checked resolver, the Standard Schema, the plain reading.
 */
import * as Automerge from '@automerge/automerge';
import { type Crdt, type CrdtUpdater, defineCrdt } from '../resolvers/crdt.js';
import type { SchemaIssue } from '../schema.js';
import { fromBase64, toBase64 } from './base64.js';

export const AUTOMERGE_TYPE = 'tessera.automerge';

/** An Automerge document as stored in Tessera. */
export interface AutomergeValue {
  readonly type: typeof AUTOMERGE_TYPE;
  readonly v: 1;
  /** `Automerge.save(doc)`, base64. */
  readonly doc: string;
}

export interface AutomergeCrdtOptions<T> {
  /**
   * The document every copy starts from, made as one deterministic change (fixed actor, time 0):
   * two clients that create the document independently create the same change, so their edits
   * land in the same lists and maps. Without it, fields made by concurrent first writers conflict
   * and Automerge keeps one of them. Default: an empty root object.
   */
  readonly initial?: T;
}

export interface AutomergeChangeOptions {
  /** Stored with the change (Automerge's commit message). */
  readonly message?: string;
}

export interface AutomergeCrdt<T> extends Crdt<AutomergeValue, T> {
  /** Updater: edits the document with Automerge's mutable proxy, e.g. `(d) => d.items.push('x')`. */
  change(edit: Automerge.ChangeFn<T>, options?: AutomergeChangeOptions): CrdtUpdater<AutomergeValue>;
  /** The document itself (the initial one for no value), for Automerge's own API. */
  doc(value: AutomergeValue | undefined): Automerge.Doc<T>;
  /** A stored value for a document. */
  encode(doc: Automerge.Doc<T>): AutomergeValue;
}

/** Automerge documents of shape `T` as a Tessera CRDT: resolver, schema, updaters, reading. */
export function automergeCrdt<T>(options: AutomergeCrdtOptions<T> = {}): AutomergeCrdt<T> {
  const start = (): Automerge.Doc<T> => initialDoc(options.initial);
  const doc = (value: AutomergeValue | undefined) =>
    value === undefined ? start() : Automerge.load<T>(fromBase64(value.doc));
  const encode = (d: Automerge.Doc<T>) => write([d]);
  const merge = (values: readonly AutomergeValue[]) => write(values.map(doc));
  return {
    ...defineCrdt({ name: 'an Automerge document', merge, issues, view: (v) => Automerge.toJS(doc(v)) }),
    change: (edit, op = {}) => {
      let made: Automerge.Change | undefined;
      return (current) => {
        const base = doc(current);
        if (made !== undefined) {
          const { hash, deps } = Automerge.decodeChange(made);
          if (Automerge.hasHeads(base, [hash])) return encode(base);
          if (Automerge.hasHeads(base, deps)) return encode(Automerge.applyChanges(base, [made])[0]);
        }
        const next = Automerge.change(
          Automerge.clone(base, { actor: randomActor() }),
          changeOptions(op),
          edit,
        );
        made = Automerge.getLastLocalChange(next);
        return encode(next);
      };
    },
    doc,
    encode,
  };
}

/** The documents' changes, each once, applied in the order of their hashes, saved. */
function write<T>(docs: readonly Automerge.Doc<T>[]): AutomergeValue {
  const byHash = new Map<string, Automerge.Change>();
  for (const d of docs) {
    for (const change of Automerge.getAllChanges(d)) byHash.set(Automerge.decodeChange(change).hash, change);
  }
  const ordered = [...byHash.keys()].sort().map((hash) => byHash.get(hash)!);
  const [merged] = Automerge.applyChanges(Automerge.init<T>(), ordered);
  return { type: AUTOMERGE_TYPE, v: 1, doc: toBase64(Automerge.save(merged)) };
}

function initialDoc<T>(initial: T | undefined): Automerge.Doc<T> {
  const empty = Automerge.init<T>({ actor: '00' });
  if (initial === undefined) return empty;
  return Automerge.change(empty, { time: 0, message: 'tessera: initial document' }, (d) => {
    Object.assign(d as object, initial);
  });
}

function changeOptions<T>(op: AutomergeChangeOptions): Automerge.ChangeOptions<T> {
  return op.message === undefined ? {} : { message: op.message };
}

function issues(value: unknown): SchemaIssue[] {
  if (typeof value !== 'object' || value === null) return [{ message: 'An Automerge value is an object.' }];
  const { type, v, doc } = value as Partial<Record<string, unknown>>;
  if (type !== AUTOMERGE_TYPE) return [{ message: `type must be "${AUTOMERGE_TYPE}".`, path: ['type'] }];
  if (v !== 1) return [{ message: 'v must be 1.', path: ['v'] }];
  try {
    if (typeof doc !== 'string') throw new TypeError('not a string');
    Automerge.load(fromBase64(doc));
    return [];
  } catch {
    return [{ message: 'doc must be a saved Automerge document, base64.', path: ['doc'] }];
  }
}

/** 128 random bits as hex, an Automerge actor id. */
function randomActor(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
