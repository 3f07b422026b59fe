/**
 * How the shelf's refusals become IPMI completion codes (IPMI v2.0 §5.2 Table 5-2; PICMG 3.0
 * uses the generic codes). The Shelf throws CommandError with a stable snake_case `code`; command
 * handlers run shelf calls through `shelfCall`, which rethrows them as IpmiError(cc) so the
 * dispatcher answers with the code (and the OEM commands can add the reason text).
 *
 * Choices (ipmi_sim answered a missing FRU with D3h, which ipmitool prints as "CC: 0xd3"):
 *   no such FRU / slot empty / FRU not installed → D3h (destination unavailable)
 *   state does not allow it (M-state, fault, power budget, lock, chassis off) → D5h
 *   value out of range → C9h; invalid value or unsupported option → CCh
 *   no such sensor or record → CBh; reservation cancelled → C5h; SEL full → C4h
 * Anything else (a store failure) is not a CommandError and becomes FFh in the dispatcher.
 */
import { CommandError } from '../../../board/common/errors.ts';
import { CompletionCode, IpmiError } from '../codes.ts';

/** Completion code of each CommandError code the Shelf (and this layer) throws. */
export const COMMAND_ERROR_CC: Readonly<Record<string, number>> = {
  unknown_fru: CompletionCode.DestinationUnavailable,
  empty_slot: CompletionCode.DestinationUnavailable,
  not_present: CompletionCode.DestinationUnavailable,
  illegal_state: CompletionCode.NotSupportedInPresentState,
  faulted: CompletionCode.NotSupportedInPresentState,
  power_budget: CompletionCode.NotSupportedInPresentState,
  chassis_off: CompletionCode.NotSupportedInPresentState,
  comm_lost: CompletionCode.NotSupportedInPresentState,
  activation_locked: CompletionCode.NotSupportedInPresentState,
  deactivation_locked: CompletionCode.NotSupportedInPresentState,
  already_faulted: CompletionCode.NotSupportedInPresentState,
  not_faulted: CompletionCode.NotSupportedInPresentState,
  already_present: CompletionCode.NotSupportedInPresentState,
  no_standby: CompletionCode.NotSupportedInPresentState,
  switchover_refused: CompletionCode.NotSupportedInPresentState,
  out_of_range: CompletionCode.ParameterOutOfRange,
  offset_out_of_range: CompletionCode.ParameterOutOfRange,
  unsupported: CompletionCode.InvalidDataField,
  bad_value: CompletionCode.InvalidDataField,
  bad_fru_data: CompletionCode.InvalidDataField,
  no_such_sensor: CompletionCode.NotPresent,
  not_found: CompletionCode.NotPresent,
  reservation_invalid: CompletionCode.ReservationCanceled,
  sel_full: CompletionCode.OutOfSpace,
};

/** Completion code for a CommandError code (unknown codes: D5h, "not supported in present state"). */
export function ccForCommandError(code: string): number {
  return COMMAND_ERROR_CC[code] ?? CompletionCode.NotSupportedInPresentState;
}

/**
 * An IpmiError that keeps the shelf's reason: `code` (snake_case) and the human message, so OEM
 * responses can carry them.
 */
export class ShelfRefusal extends IpmiError {
  constructor(
    cc: number,
    readonly code: string,
    message: string,
  ) {
    super(cc, message);
    this.name = 'ShelfRefusal';
  }
}

/**
 * Runs a Shelf command; a CommandError becomes a ShelfRefusal (an IpmiError) with the mapped
 * completion code. Other errors propagate (the dispatcher answers FFh and logs them).
 */
export function shelfCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof CommandError) throw new ShelfRefusal(ccForCommandError(e.code), e.code, e.message);
    throw e;
  }
}
