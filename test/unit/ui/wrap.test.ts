/** wrapGroups: breaks only between groups, indents continuation lines, clips a group too wide alone. */
import { describe, expect, it } from 'vitest';
import { lineText } from '../../../ui/view-model.ts';
import { wrapGroups } from '../../../ui/wrap.ts';

describe('wrapGroups', () => {
  it('keeps one line when it fits, else breaks between groups', () => {
    const g = [[{ text: 'HA' }], [{ text: ' lb1/slot3 ' }, { text: 'active' }], [{ text: ', lb1/slot4 ' }, { text: 'standby.hot' }]];
    expect(wrapGroups(g, 80).map(lineText)).toEqual(['HA lb1/slot3 active, lb1/slot4 standby.hot']);
    expect(wrapGroups(g, 26).map(lineText)).toEqual(['HA lb1/slot3 active', '    lb1/slot4 standby.hot']);
  });
  it('clips a group wider than the line with an ellipsis', () => {
    expect(wrapGroups([[{ text: 'x'.repeat(30) }]], 10).map(lineText)).toEqual(['xxxxxxxxx…']);
  });
});
