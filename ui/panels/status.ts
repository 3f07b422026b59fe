/**
 * The two bottom lines: the message line (result of the last command, refusals in red) and the
 * status line (shelf totals, active ShMC, IPMI address, key hints).
 */
import blessed from 'blessed';
import type { Widgets } from 'blessed';
import type { ViewModel } from '../view-model.ts';
import { lineMarkup } from './tags.ts';

/** Message and status lines. */
export class StatusPanel {
  private readonly message: Widgets.BoxElement;
  private readonly status: Widgets.BoxElement;

  constructor(screen: Widgets.Screen) {
    this.message = blessed.box({ parent: screen, top: 22, left: 0, height: 1, width: '100%', tags: true, wrap: false });
    this.status = blessed.box({ parent: screen, top: 23, left: 0, height: 1, width: '100%', tags: true, wrap: false });
  }

  /** Shows both lines at the view model's layout. */
  update(vm: ViewModel): void {
    const l = vm.layout;
    this.message.top = l.messageRow;
    this.message.width = l.width;
    this.message.setContent(lineMarkup(vm.message));
    this.status.top = l.statusRow;
    this.status.width = l.width;
    this.status.setContent(lineMarkup(vm.status));
  }
}
