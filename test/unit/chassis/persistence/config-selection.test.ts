// Which shelf is in force (chassis/persistence/config-selection.ts): new database → --config or the
// default; later starts → the stored one unless --config replaces it (logged).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { captureLogger } from '../../../../board/common/logger.ts';
import { resolveShelfConfig } from '../../../../chassis/persistence/config-selection.ts';
import { MemoryStore } from '../../../../chassis/persistence/store.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../../../chassis/io/data-dir.ts';

const small = (name: string) => `shelf: { name: ${name} }
shelf_managers: { units: { shmc-a: {}, shmc-b: {} } }
boards: { slot1: { type: hub }, slot3: { type: processor }, slot4: { type: processor } }
`;
const defaultShelf = { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME };

describe('resolveShelfConfig', () => {
  it('a new database takes the default shelf and stores it', () => {
    const store = new MemoryStore();
    const r = resolveShelfConfig(store, { defaultShelf, nowMs: 1, log: captureLogger() });
    expect(r).toMatchObject({ origin: 'default', replaced: false, source: DEFAULT_SHELF_NAME });
    expect(r.config.name).toBe('atcasim-default');
    expect(store.getConfig()).toEqual({ yaml: defaultShelf.yaml, source: DEFAULT_SHELF_NAME, storedAt: 1 });
  });

  it('a new database with --config takes that file', () => {
    const store = new MemoryStore();
    const r = resolveShelfConfig(store, { given: { yaml: small('lab'), source: 'lab.yaml' }, defaultShelf, nowMs: 2, log: captureLogger() });
    expect(r).toMatchObject({ origin: 'given', replaced: false });
    expect(store.getConfig()!.source).toBe('lab.yaml');
  });

  it('later starts use the stored shelf; --config replaces it, logged', () => {
    const store = new MemoryStore();
    resolveShelfConfig(store, { given: { yaml: small('lab'), source: 'lab.yaml' }, defaultShelf, nowMs: 2, log: captureLogger() });
    const later = resolveShelfConfig(store, { defaultShelf, nowMs: 3, log: captureLogger() });
    expect(later).toMatchObject({ origin: 'stored', source: 'lab.yaml' });
    expect(later.config.name).toBe('lab');
    const log = captureLogger();
    const again = resolveShelfConfig(store, { given: { yaml: small('lab'), source: 'lab.yaml' }, defaultShelf, nowMs: 4, log });
    expect(again.replaced).toBe(false);
    expect(store.getConfig()!.storedAt).toBe(2); // unchanged file: not rewritten
    const replaced = resolveShelfConfig(store, { given: { yaml: small('lab2'), source: 'lab2.yaml' }, defaultShelf, nowMs: 5, log });
    expect(replaced).toMatchObject({ origin: 'given', replaced: true });
    expect(store.getConfig()).toMatchObject({ source: 'lab2.yaml', storedAt: 5 });
    expect(log.records.some((r) => r.level === 'info' && /replaced by lab2\.yaml/.test(r.msg ?? ''))).toBe(true);
  });

  it('an invalid --config changes nothing; an invalid stored shelf says how to replace it', () => {
    const store = new MemoryStore();
    resolveShelfConfig(store, { defaultShelf, nowMs: 1, log: captureLogger() });
    expect(() => resolveShelfConfig(store, { given: { yaml: 'shelf: [', source: 'bad.yaml' }, defaultShelf, nowMs: 2, log: captureLogger() })).toThrow(ConfigError);
    expect(store.getConfig()!.source).toBe(DEFAULT_SHELF_NAME);
    store.putConfig({ yaml: 'shelf: { name: x }\n', source: 'old.yaml', storedAt: 3 });
    expect(() => resolveShelfConfig(store, { defaultShelf, nowMs: 4, log: captureLogger() })).toThrow(
      /^old\.yaml \(stored in the database\):1:1: missing required key "shelf_managers" — start with --config FILE/,
    );
  });
});
