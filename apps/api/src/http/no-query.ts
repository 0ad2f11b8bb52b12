/**
 * The query of a list that takes no parameters (a class with no field): any parameter is
 * `400 invalid_parameter` ("property x should not exist"), as on the lists that take some, so a
 * filter a client guessed (`?state=disabled`) never silently returns everything.
 */
export class NoQuery {}
