/**
 * The shelf's front view panel: the title row, the slot columns in physical order (pos, slot,
 * board, M-state, HA role, blue LED, packets/s, sessions, load sparkline) and the management
 * row (shelf managers, fan trays, PEMs). Content comes laid out from the view model.
 */
import blessed from 'blessed';
import type { Widgets } from 'blessed';
import type { ViewModel } from '../view-model.ts';
import { lineMarkup, linesMarkup } from './tags.ts';

/** The panel: a title line and the front box. */
export class ShelfPanel {
  private readonly title: Widgets.BoxElement;
  private readonly front: Widgets.BoxElement;

  constructor(screen: Widgets.Screen) {
    this.title = blessed.box({ parent: screen, top: 0, left: 0, height: 1, width: '100%', tags: true, wrap: false });
    this.front = blessed.box({ parent: screen, top: 1, left: 0, height: 10, width: '100%', tags: true, wrap: false });
  }

  /** Shows the view model's title, front rows and management row at its layout. */
  update(vm: ViewModel): void {
    const l = vm.layout;
    this.title.top = l.titleRow;
    this.title.width = l.width;
    this.title.setContent(lineMarkup(vm.title));
    this.front.top = l.frontTop;
    this.front.width = l.width;
    this.front.height = l.frontRows + 1;
    this.front.setContent(linesMarkup([...vm.front, vm.mgmt]));
  }
}
