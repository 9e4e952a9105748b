/**
 * dbus-next 0.10.2's simple-type marshallers: internal, untyped. The fake BlueZ relaxes one of
 * them (`allowIntegerDictKeys` in fake-bluez.ts); the shape is checked at run time there.
 */
declare module 'dbus-next/lib/marshallers.js' {
  interface SimpleMarshaller {
    check(data: unknown): void;
    marshall(stream: unknown, data: unknown): void;
  }
  const marshallers: { MakeSimpleMarshaller: (signature: string) => SimpleMarshaller };
  export default marshallers;
}
