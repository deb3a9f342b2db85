/**
 * What a registration is called on the pages when the Dispatcher's record is not what its users
 * know: the sandbox's API, say, hands out its own ids and has the Dispatcher deliver through a
 * proxy URL. Links and forms keep the Dispatcher's id.
 */
export interface RegistrationName {
  /** The id the user knows (the API's). */
  id: string;
  /** The URL the user registered. */
  url: string;
}

/** Gives a registration's name by the Dispatcher's id; `undefined` keeps the Dispatcher's id and URL. */
export type RegistrationNamer = (dispatcherId: string) => RegistrationName | undefined;

/** A registration as the pages show it: its name, and the Dispatcher's id and URL when they differ. */
export interface ShownRegistration extends RegistrationName {
  dispatcherId: string;
  /** The URL the Dispatcher delivers to, when it is not `url`. */
  deliveredTo: string | undefined;
}

/** The name of `registration` by `namer`, or its own. */
export function shownRegistration(namer: RegistrationNamer | undefined, registration: { id: string; url?: string }): ShownRegistration {
  const name = namer?.(registration.id);
  const url = name?.url ?? registration.url ?? registration.id;
  return {
    id: name?.id ?? registration.id,
    url,
    dispatcherId: registration.id,
    deliveredTo: registration.url !== undefined && registration.url !== url ? registration.url : undefined,
  };
}
