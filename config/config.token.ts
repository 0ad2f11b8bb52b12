/** DI token of the validated AppConfig tree. */
export const APP_CONFIG = Symbol('APP_CONFIG');
