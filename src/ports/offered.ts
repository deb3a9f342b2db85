/**
 * Read methods a store offers beside its interface (so that stores written elsewhere need not
 * implement them): `offer` attaches them to a store and returns the store, `of` finds them.
 */
export function offeredBeside<Reads>(): { offer: <Store extends object>(store: Store, reads: Reads) => Store; of: (store: object) => Reads | undefined } {
  const offered = new WeakMap<object, Reads>();
  return {
    offer: (store, reads) => {
      offered.set(store, reads);
      return store;
    },
    of: (store) => offered.get(store),
  };
}
