/**
 * The detail pane of the selected slot or FRU: identity, M-state, LEDs and power, HA roles,
 * traffic and session-table fill with the hot hit ratio, the RS table (ipvsadm -Ln style),
 * sensors with thresholds, FRU data, console. Scrolls with PgUp/PgDn (the UI state's
 * `detailScroll`, clamped here to the content).
 */
import blessed from 'blessed';
import type { Widgets } from 'blessed';
import type { ViewModel } from '../view-model.ts';
import { lineMarkup, linesMarkup, tagColor } from './tags.ts';

/** The detail pane. */
export class DetailPanel {
  private readonly box: Widgets.BoxElement;

  constructor(screen: Widgets.Screen) {
    this.box = blessed.box({ parent: screen, top: 11, left: 0, height: 10, width: '50%', tags: true, wrap: false });
  }

  /**
   * Shows the detail lines from `scroll`.
   * @returns the scroll offset actually used (clamped to the content)
   */
  update(vm: ViewModel, scroll: number): number {
    const l = vm.layout;
    const rows = Math.max(1, l.paneHeight - 1);
    const max = Math.max(0, vm.detail.length - rows);
    const s = Math.max(0, Math.min(scroll, max));
    this.box.top = l.paneTop;
    this.box.left = 0;
    this.box.width = l.detailWidth;
    this.box.height = l.paneHeight;
    const more = max > 0 ? `  [${s + 1}-${Math.min(vm.detail.length, s + rows)}/${vm.detail.length} PgUp/PgDn]` : '';
    this.box.setContent(`${lineMarkup(vm.detailTitle)}{${tagColor('gray')}-fg}${blessed.escape(more)}{/${tagColor('gray')}-fg}\n${linesMarkup(vm.detail.slice(s, s + rows))}`);
    return s;
  }
}
