/**
 * The pino edge of the Logger port: JSON lines with every key once, even when nested children
 * bind the same key (`module`), the innermost value winning; other bindings are kept.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLoggers } from '../../../../chassis/io/logger.ts';

const dir = mkdtempSync(join(tmpdir(), 'atcasim-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createLoggers', () => {
  it('writes each binding key once: a nested child that repeats a key replaces its value', () => {
    const path = join(dir, 'a.log');
    const l = createLoggers({ destination: { kind: 'file', path } });
    l.log.child({ module: 'chassis.dataplane', slot: 3 }).child({ module: 'board.processor' }).child({ share: 'lb1/slot3' }).info({}, 'promoted');
    l.log.child({ module: 'chassis.ha' }).child({ node: 'slot4' }).info({}, 'role');
    l.flush();
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.match(/"module":/g)).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ module: 'board.processor', slot: 3, share: 'lb1/slot3', msg: 'promoted' });
    expect(JSON.parse(lines[1]!)).toMatchObject({ module: 'chassis.ha', node: 'slot4', msg: 'role' });
  });

  it('creates the log file readable by its owner only (the first start logs the admin password)', () => {
    const path = join(dir, 'b.log');
    const l = createLoggers({ destination: { kind: 'file', path } });
    l.log.info({}, 'x');
    l.flush();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
