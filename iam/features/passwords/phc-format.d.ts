/** The PHC string format parser ships without typings. */
declare module '@phc/format' {
  export interface PhcObject {
    id: string
    version?: number
    params?: Record<string, string | number>
    salt?: Buffer
    hash?: Buffer
  }
  export function deserialize(phc: string): PhcObject
  export function serialize(phc: PhcObject): string
}
