/** Header names whose values are credentials. */
const SECRET_NAME = /auth|key|token|secret|cookie|passw|session|credential/i;
/** Values that look like credentials whatever their header name. */
const SECRET_VALUE = /^(bearer|basic)\s|^sk-|^sk-ant-|^xox.-|^gh[pousr]_|^AIza|^eyJ[\w-]+\.[\w-]+/i;

/**
 * The one rule for which headers hold secrets: their values are withheld from every file and
 * masked from every text; any other header is recorded as sent and masks nothing (its value may
 * well be a word a model writes, such as "production").
 */
export function isCredentialHeader(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value.trim());
}
