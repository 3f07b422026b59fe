/** The data plane's per-entry flow stamps (chassis/dataplane/flow-stamps.ts); data-plane.flow-stamps
 * tests that skipping the probe for a stamped session leaves every flow count unchanged. */
import { describe, expect, it } from 'vitest';
import { FlowStamps } from '../../../../chassis/dataplane/flow-stamps.ts';

describe('FlowStamps', () => {
  it('is 0 until set, keeps what is set, and goes back to 0 on reset and clear', () => {
    const st = new FlowStamps(100_000);
    expect([st.get(0), st.get(99_999), st.bytes()]).toEqual([0, 0, 0]);
    st.set(7, 123);
    st.set(5000, -9);
    expect([st.get(7), st.get(5000), st.get(8)]).toEqual([123, -9, 0]);
    st.reset(7);
    st.reset(90_000); // never stored: nothing to do
    expect([st.get(7), st.get(5000)]).toEqual([0, -9]);
    st.clear();
    expect(st.get(5000)).toBe(0);
  });

  it('grows with the entries stamped, never past the table capacity', () => {
    const st = new FlowStamps(10_000);
    st.set(1, 1);
    expect(st.bytes()).toBe(4096 * 4);
    st.set(9_999, 2);
    expect(st.bytes()).toBe(10_000 * 4);
    expect([st.get(1), st.get(9_999)]).toEqual([1, 2]);
  });
});
