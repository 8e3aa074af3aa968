/**
 * A typed collection: values of one schema under keys `prefix + separator + id`, validated on the
 * way in (VALIDATION_FAILED) and on the way out (INVALID_STORED_VALUE, naming the key), merged with
 * the collection's resolver.
 */
import { TesseraError } from './errors.js';
import type { BackoffOptions } from './http/retry.js';
import {
  type DeleteResult,
  type GetManyResult,
  type GetResult,
  type ListOptions,
  mergeSiblings,
  type PutResult,
  type ReadOptions,
  type WriteOptions,
} from './kv.js';
import type { Resolver } from './resolvers/types.js';
import { checkIn, checkStored, type StandardSchemaV1 } from './schema.js';
import { runUpdate, type UpdateOptions, type UpdateResult, type Updater } from './update.js';

export interface CollectionOptions<T> {
  /** Any Standard Schema: a zod schema, valibot, arktype, or `cart.schema`. */
  readonly schema: StandardSchemaV1<unknown, T>;
  /** Merges siblings; without it, reading a key with several siblings fails with SIBLINGS_UNRESOLVED. */
  readonly resolver?: Resolver<T> | undefined;
  /** Between prefix and id. Default "/". */
  readonly separator?: string;
}

export interface CollectionGetResult<T> {
  readonly id: string;
  readonly key: string;
  /** The value (siblings merged by the resolver); undefined when the key has none. */
  readonly value: T | undefined;
  readonly context: string | undefined;
  /** How many siblings were merged into `value`. */
  readonly siblings: number;
}

/** What a collection needs from the client. */
export interface KeyValueCalls {
  get<V>(key: string, options?: ReadOptions): Promise<GetResult<V>>;
  put<V>(key: string, value: V, options?: WriteOptions): Promise<PutResult>;
  delete(key: string, options?: WriteOptions): Promise<DeleteResult>;
  getMany<V>(keys: readonly string[], options?: ReadOptions): Promise<GetManyResult<V>[]>;
  keys(options?: ListOptions): AsyncIterable<string>;
  readonly backoff: BackoffOptions;
}

/** Options of a collection's listing: the client's listing options but the prefix (the collection's). */
export type CollectionListOptions = Omit<ListOptions, 'prefix'> & ReadOptions;

/** Keys read per batch by `entries`, unless `pageSize` says otherwise. */
const ENTRIES_BATCH = 100;

export class Collection<T> {
  private readonly separator: string;

  constructor(
    private readonly kv: KeyValueCalls,
    readonly prefix: string,
    private readonly options: CollectionOptions<T>,
  ) {
    this.separator = options.separator ?? '/';
  }

  /** The key an id is stored under. */
  key(id: string): string {
    if (typeof id !== 'string' || id.length === 0) {
      throw new TesseraError('INVALID_ARGUMENT', 'A collection id is a non-empty string.');
    }
    return `${this.prefix}${this.separator}${id}`;
  }

  /**
   * The ids of the collection's live values (`prefix + separator + id` keys), listed page after
   * page: `for await (const id of carts.keys())`. Eventually consistent, in partition order
   * (client.keys, docs/api.md).
   */
  async *keys(options: CollectionListOptions = {}): AsyncGenerator<string, void, undefined> {
    const start = this.prefix + this.separator;
    for await (const key of this.kv.keys({ ...options, prefix: start })) yield key.slice(start.length);
  }

  /**
   * Every live value of the collection with its id, validated and merged as `get` does, read a page
   * of keys at a time with batch gets. A key deleted between its listing and its read is skipped; a
   * key whose read failed in the batch is read again alone, and its error thrown if that fails too.
   */
  async *entries(
    options: CollectionListOptions = {},
  ): AsyncGenerator<CollectionGetResult<T>, void, undefined> {
    const ids: string[] = [];
    const flush = async (): Promise<CollectionGetResult<T>[]> => {
      const batch = ids.splice(0, ids.length);
      const reads = await this.kv.getMany<unknown>(
        batch.map((id) => this.key(id)),
        options,
      );
      const out: CollectionGetResult<T>[] = [];
      for (let i = 0; i < batch.length; i++) {
        const id = batch[i]!;
        const result = reads[i]!;
        const read =
          result.error === undefined ? await this.checked(result) : await this.siblings(id, options);
        if (read.siblings.length === 0) continue;
        out.push(this.merged(id, read));
      }
      return out;
    };
    for await (const id of this.keys(options)) {
      ids.push(id);
      if (ids.length >= (options.pageSize ?? ENTRIES_BATCH)) yield* await flush();
    }
    if (ids.length > 0) yield* await flush();
  }

  /** Every sibling, validated. */
  async siblings(id: string, options?: ReadOptions): Promise<GetResult<T>> {
    const key = this.key(id);
    return this.checked(await this.kv.get<unknown>(key, options));
  }

  /** A read with every sibling validated against the schema. */
  private async checked(read: GetResult<unknown>): Promise<GetResult<T>> {
    const count = read.siblings.length;
    const values: T[] = [];
    for (let index = 0; index < count; index++) {
      values.push(
        await checkStored(this.options.schema, read.siblings[index], read.key, this.owner, { index, count }),
      );
    }
    const versions = read.versions.map((v, i) => ({ value: values[i]!, lastModified: v.lastModified }));
    return { ...read, siblings: values, versions };
  }

  /** The value, merged with the collection's resolver when there are siblings. */
  async get(id: string, options?: ReadOptions): Promise<CollectionGetResult<T>> {
    return this.merged(id, await this.siblings(id, options));
  }

  private merged(id: string, read: GetResult<T>): CollectionGetResult<T> {
    return {
      id,
      key: read.key,
      value: mergeSiblings(read, this.options.resolver),
      context: read.context,
      siblings: read.siblings.length,
    };
  }

  async put(id: string, value: T, options?: WriteOptions): Promise<PutResult> {
    const key = this.key(id);
    return this.kv.put(key, await this.checkIn(key, value), options);
  }

  /** Read, merge, apply `fn`, validate, write with the read's context (see client.update). */
  async update(id: string, fn: Updater<T>, options: UpdateOptions<T> = {}): Promise<UpdateResult<T>> {
    const key = this.key(id);
    const steps = {
      read: (_key: string, o: ReadOptions) => this.siblings(id, o),
      write: async (k: string, value: T, o: WriteOptions) => this.kv.put(k, await this.checkIn(k, value), o),
      backoff: this.kv.backoff,
    };
    return runUpdate(steps, key, fn, { ...options, resolver: options.resolver ?? this.options.resolver });
  }

  async delete(id: string, options?: WriteOptions): Promise<DeleteResult> {
    return this.kv.delete(this.key(id), options);
  }

  private async checkIn(key: string, value: T): Promise<T> {
    return checkIn(this.options.schema, value, key, this.owner);
  }

  /** Who the schema belongs to, for error messages. */
  private get owner(): string {
    return `collection "${this.prefix}"`;
  }
}
