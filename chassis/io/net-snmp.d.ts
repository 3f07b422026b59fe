/**
 * Types of the part of net-snmp (npm, 3.29; it ships none) that the SNMP adapters use: the agent
 * with its MIB providers and authorizer, and manager sessions for notifications. Written from the
 * library's README and source (index.js); only what chassis/io/snmp-*.ts calls.
 */
declare module 'net-snmp' {
  import type { Socket } from 'node:dgram';

  export const Version1: number;
  export const Version2c: number;
  export const Version3: number;
  export const ObjectType: Record<'Integer' | 'OctetString' | 'OID' | 'TimeTicks' | 'Gauge' | 'Unsigned32' | 'Integer32', number>;
  export const MibProviderType: Record<'Scalar' | 'Table', number>;
  export const MaxAccess: Record<'not-accessible' | 'accessible-for-notify' | 'read-only' | 'read-write' | 'read-create', number>;
  export const AccessControlModelType: Record<'None' | 'Simple', number>;
  export const AccessLevel: Record<'None' | 'ReadOnly' | 'ReadWrite', number>;
  export const SecurityLevel: Record<'noAuthNoPriv' | 'authNoPriv' | 'authPriv', number>;
  export const AuthProtocols: Record<'none' | 'md5' | 'sha' | 'sha224' | 'sha256' | 'sha384' | 'sha512', number>;
  export const PrivProtocols: Record<'none' | 'des' | 'aes' | 'aes256b' | 'aes256r', number>;

  export interface Varbind {
    oid: string;
    type: number;
    value: unknown;
  }

  export interface User {
    name: string;
    level: number;
    authProtocol?: number;
    authKey?: string;
    privProtocol?: number;
    privKey?: string;
  }

  export interface TableColumn {
    number: number;
    name: string;
    type: number;
    maxAccess: number;
  }

  export interface MibRequest {
    instanceNode: { value: unknown };
    done(): void;
  }

  export interface Provider {
    name: string;
    type: number;
    oid: string;
    maxAccess: number;
    scalarType?: number;
    tableColumns?: TableColumn[];
    tableIndex?: Array<{ columnName: string; foreign?: string }>;
    handler?: (req: MibRequest) => void;
  }

  export interface Mib {
    registerProvider(p: Provider): void;
    setScalarValue(name: string, value: unknown): void;
    addTableRow(table: string, row: unknown[]): void;
    deleteTableRow(table: string, rowIndex: unknown[]): boolean;
  }

  export interface AccessControlModel {
    setCommunityAccess(community: string, level: number): void;
    setUserAccess(user: string, level: number): void;
  }

  export interface Authorizer {
    addCommunity(community: string): void;
    addUser(user: User): void;
    getAccessControlModel(): AccessControlModel;
  }

  /** What the agent takes as `dgramModule`: something with node:dgram's createSocket. */
  export interface DgramModule {
    createSocket(type: string): Socket;
  }

  export interface AgentOptions {
    port: number;
    address: string | null;
    transport: 'udp4' | 'udp6';
    disableAuthorization?: boolean;
    accessControlModelType: number;
    engineID: string;
    dgramModule?: DgramModule;
  }

  export interface Agent {
    getMib(): Mib;
    getAuthorizer(): Authorizer;
    close(callback?: () => void): void;
  }

  export interface SessionOptions {
    version?: number;
    trapPort?: number;
    transport?: 'udp4' | 'udp6';
    engineID?: string;
    retries?: number;
    timeout?: number;
  }

  export interface Session {
    /** SNMPv1 sessions: `oid` = enterprise OID + '.' + specific trap number (generic trap 6). */
    trap(oid: string, varbinds: Varbind[], options: { upTime?: number; agentAddr?: string }, callback: (error: Error | null) => void): void;
    inform(oid: string, varbinds: Varbind[], options: { upTime?: number }, callback: (error: Error | null) => void): void;
    close(): void;
    on(event: 'error', fn: (e: Error) => void): void;
  }

  export function createAgent(options: AgentOptions, callback: (error: Error | null, data: unknown) => void): Agent;
  export function createSession(target: string, community: string, options: SessionOptions): Session;
  export function createV3Session(target: string, user: User, options: SessionOptions): Session;

  const snmp: {
    Version1: typeof Version1;
    Version2c: typeof Version2c;
    Version3: typeof Version3;
    ObjectType: typeof ObjectType;
    MibProviderType: typeof MibProviderType;
    MaxAccess: typeof MaxAccess;
    AccessControlModelType: typeof AccessControlModelType;
    AccessLevel: typeof AccessLevel;
    SecurityLevel: typeof SecurityLevel;
    AuthProtocols: typeof AuthProtocols;
    PrivProtocols: typeof PrivProtocols;
    createAgent: typeof createAgent;
    createSession: typeof createSession;
    createV3Session: typeof createV3Session;
  };
  export default snmp;
}
