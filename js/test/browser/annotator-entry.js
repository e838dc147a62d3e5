// What the browser test bundles of Apache Annotator (a devDependency):
// its DOM matchers, with the packages they need.
export { createTextQuoteSelectorMatcher, createTextPositionSelectorMatcher } from '@apache-annotator/dom';
