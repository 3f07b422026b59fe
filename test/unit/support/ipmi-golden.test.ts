/** The golden-transcript helper: parses every transcript, and its shape comparison catches real differences. */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareShape, firstTwoChannels, listGolden, loadGolden, parseGolden, retarget, shapeOf, splitCommandLine } from '../../support/ipmi-golden.ts';
import { shared } from '../../support/shared.ts';

describe('parsing ../shared/ipmi/golden', () => {
  it('parses every transcript; byte counts and INDEX.txt exit codes agree', () => {
    const index = new Map(
      readFileSync(shared('ipmi', 'golden', 'INDEX.txt'), 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('#') && l.includes('|'))
        .map((l) => l.split(' | '))
        .map(([f, code]) => [f!, Number(code)]),
    );
    let n = 0;
    for (const dir of readdirSync(shared('ipmi', 'golden')).filter((d) => !d.endsWith('.txt'))) {
      for (const f of readdirSync(shared('ipmi', 'golden', dir))) {
        const g = loadGolden(`${dir}/${f}`);
        expect(g.exitCode).toBe(index.get(`${dir}/${f}`));
        n++;
      }
    }
    expect(n).toBe(index.size);
    expect(listGolden('ipmitool-lanplus-C3')[0]).toBe('ipmitool-lanplus-C3/01_mc_info.txt');
  });

  it('rejects malformed transcripts', () => {
    expect(() => parseGolden('ipmitool mc info\n')).toThrow(/"\$ "/);
    expect(() => parseGolden('$ x\n=== exit code: 0\n=== stdout (3 bytes)\nabc=== stderr (0 bytes)\n')).toThrow(/=== end|truncated/);
  });

  it('splits quoted command lines and retargets ipmitool and FreeIPMI to our port', () => {
    const g = loadGolden('ipmitool-lan/24_sensor_get_temp.txt');
    expect(splitCommandLine(g.command).slice(-3)).toEqual(['sensor', 'get', 'ShMC Temp']);
    expect(retarget(splitCommandLine(g.command), 1234)).toContain('1234');
    expect(retarget(['bmc-info', '-h', '127.0.0.1:9001'], 77)).toEqual(['bmc-info', '-h', '127.0.0.1:77']);
  });
});

describe('shape comparison', () => {
  const mcInfo = loadGolden('ipmitool-lanplus-C3/01_mc_info.txt').stdout;

  it('ignores values but not labels, order, alignment or sections', () => {
    expect(compareShape(mcInfo, mcInfo.replace('Firmware Revision         : 2.10', 'Firmware Revision         : 7.01'))).toEqual([]);
    expect(compareShape(mcInfo, mcInfo.replace('Firmware Revision ', 'Firmware Version  '))).not.toEqual([]);
    expect(compareShape(mcInfo, mcInfo.replace('Device ID                 :', 'Device ID :'))).not.toEqual([]);
    const lines = mcInfo.split('\n');
    [lines[1], lines[2]] = [lines[2]!, lines[1]!];
    expect(compareShape(mcInfo, lines.join('\n'))).not.toEqual([]);
    expect(compareShape(mcInfo, mcInfo + '\nExtra Section             : x\n')).not.toEqual([]);
    expect(compareShape(mcInfo, '')).not.toEqual([]);
  });

  it('lets lists, table rows and repeated blocks have any length ≥ 1', () => {
    const users = loadGolden('ipmitool-lanplus-C3/32_user_list.txt').stdout;
    const short = users.split('\n').slice(0, 5).join('\n') + '\n';
    expect(compareShape(users, short)).toEqual([]);
    expect(compareShape(users, users.split('\n')[0] + '\n')).not.toEqual([]); // header without rows
    const sessions = loadGolden('ipmitool-lanplus-C3/38_session_info_all.txt').stdout;
    expect(shapeOf(sessions).filter((t) => t === 'BLANK')).toHaveLength(1);
    expect(compareShape(mcInfo.replace('    SEL Device\n', ''), mcInfo)).toEqual([]);
  });

  it('drops ignored labels and applies the transform to both sides', () => {
    const s = 'a : 1\nconsole ip : 1.2.3.4\nb : 2\n';
    expect(compareShape('a : 1\nb : 2\n', s)).not.toEqual([]);
    expect(compareShape('a : 1\nb : 2\n', s, { ignoreLabels: ['console ip'] })).toEqual([]);
    const bmc = loadGolden('freeipmi/04_bmc-info_lan20_C3_admin.txt').stdout;
    expect(firstTwoChannels(bmc).match(/Channel Number/g)).toHaveLength(2);
  });
});
