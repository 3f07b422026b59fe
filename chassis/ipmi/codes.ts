/**
 * IPMI code spaces as `as const` tables with type guards: completion codes, network functions,
 * privilege levels, IPMI 1.5 authentication types, RMCP+ payload types and RMCP+ status codes,
 * plus `IpmiError`, the one exception command handlers throw to answer with a completion code.
 *
 * Sources: IPMI v2.0 rev 1.1 §5.2 (completion codes, Table 5-2), §5.1 (NetFn, Table 5-1),
 * §6.8 (privilege levels), §13.6 (authentication types), §13.27.3 (payload types),
 * §13.24 (RMCP+ status codes, Table 13-15); research notes ../shared/research/ipmi.md §A.6.
 */

/** Generic completion codes (IPMI v2.0 Table 5-2) and the command-specific ones atcasim uses. */
export const CompletionCode = {
  Ok: 0x00,
  NodeBusy: 0xc0,
  InvalidCommand: 0xc1,
  InvalidForLun: 0xc2,
  Timeout: 0xc3,
  OutOfSpace: 0xc4,
  ReservationCanceled: 0xc5,
  DataTruncated: 0xc6,
  RequestDataLengthInvalid: 0xc7,
  RequestDataFieldLengthExceeded: 0xc8,
  ParameterOutOfRange: 0xc9,
  CannotReturnRequestedBytes: 0xca,
  NotPresent: 0xcb,
  InvalidDataField: 0xcc,
  IllegalForSensorOrRecord: 0xcd,
  ResponseUnavailable: 0xce,
  DuplicatedRequest: 0xcf,
  SdrInUpdateMode: 0xd0,
  FirmwareUpdateMode: 0xd1,
  InitializationInProgress: 0xd2,
  DestinationUnavailable: 0xd3,
  InsufficientPrivilege: 0xd4,
  NotSupportedInPresentState: 0xd5,
  SubFunctionDisabled: 0xd6,
  Unspecified: 0xff,
} as const;
/** A value of `CompletionCode`. */
export type CompletionCode = (typeof CompletionCode)[keyof typeof CompletionCode];

/** Network functions (requests; the response NetFn is request + 1). IPMI v2.0 Table 5-1. */
export const NetFn = {
  Chassis: 0x00,
  Bridge: 0x02,
  SensorEvent: 0x04,
  App: 0x06,
  Firmware: 0x08,
  Storage: 0x0a,
  Transport: 0x0c,
  /** Group extension; PICMG uses group extension identifier 00h (PICMG 3.0 §3.7). */
  GroupExtension: 0x2c,
  OemGroup: 0x2e,
} as const;
/** A value of `NetFn`. */
export type NetFn = (typeof NetFn)[keyof typeof NetFn];

/** Privilege levels (IPMI v2.0 §6.8). 0 is "none"/"highest" depending on context; 0Fh = no access. */
export const Privilege = {
  Callback: 1,
  User: 2,
  Operator: 3,
  Administrator: 4,
  Oem: 5,
  NoAccess: 0x0f,
} as const;
/** A privilege level a session can operate at (1..4). */
export type SessionPrivilege = 1 | 2 | 3 | 4;

/** True for 1 (callback) .. 4 (administrator). */
export function isSessionPrivilege(v: number): v is SessionPrivilege {
  return v === 1 || v === 2 || v === 3 || v === 4;
}

/** ipmitool's names for privilege levels (used in logs and docs). */
export const privilegeName: Record<number, string> = {
  1: 'CALLBACK',
  2: 'USER',
  3: 'OPERATOR',
  4: 'ADMINISTRATOR',
  5: 'OEM',
  15: 'NO ACCESS',
};

/** IPMI 1.5 session authentication types (IPMI v2.0 §13.6); 6 marks the RMCP+ session format. */
export const AuthType = {
  None: 0,
  Md2: 1,
  Md5: 2,
  Password: 4,
  Oem: 5,
  RmcpPlus: 6,
} as const;

/** RMCP+ payload types (IPMI v2.0 §13.27.3, bits 5:0 of the payload type byte). */
export const PayloadType = {
  Ipmi: 0x00,
  Sol: 0x01,
  Oem: 0x02,
  OpenSessionRequest: 0x10,
  OpenSessionResponse: 0x11,
  Rakp1: 0x12,
  Rakp2: 0x13,
  Rakp3: 0x14,
  Rakp4: 0x15,
} as const;

/** RMCP+ and RAKP message status codes (IPMI v2.0 Table 13-15). */
export const RmcpPlusStatus = {
  Ok: 0x00,
  InsufficientResources: 0x01,
  InvalidSessionId: 0x02,
  InvalidPayloadType: 0x03,
  InvalidAuthAlgorithm: 0x04,
  InvalidIntegrityAlgorithm: 0x05,
  NoMatchingAuthPayload: 0x06,
  NoMatchingIntegrityPayload: 0x07,
  InactiveSessionId: 0x08,
  InvalidRole: 0x09,
  UnauthorizedRole: 0x0a,
  InsufficientResourcesForRole: 0x0b,
  InvalidNameLength: 0x0c,
  UnauthorizedName: 0x0d,
  UnauthorizedGuid: 0x0e,
  InvalidIntegrityCheckValue: 0x0f,
  InvalidConfidentialityAlgorithm: 0x10,
  NoCipherSuiteMatch: 0x11,
  IllegalParameter: 0x12,
} as const;
/** A value of `RmcpPlusStatus`. */
export type RmcpPlusStatus = (typeof RmcpPlusStatus)[keyof typeof RmcpPlusStatus];

/**
 * Thrown by command handlers to answer with a completion code and no data. The dispatcher turns
 * it into a response; it never escapes the LAN server.
 */
export class IpmiError extends Error {
  readonly kind = 'ipmi' as const;
  /** @param cc completion code (01h..FFh); @param detail text for logs */
  constructor(
    readonly cc: number,
    detail?: string,
  ) {
    super(detail ?? `completion code ${cc.toString(16).padStart(2, '0')}h`);
    this.name = 'IpmiError';
  }
}

/**
 * Checks a request's data length; throws IpmiError(C7h) outside [min, max].
 * @param max defaults to `min` (exact length)
 */
export function expectLength(data: Uint8Array, min: number, max = min): void {
  if (data.length < min || data.length > max) {
    throw new IpmiError(CompletionCode.RequestDataLengthInvalid, `request data length ${data.length}, expected ${min}..${max}`);
  }
}
