// `require('ptc-runtime')`: the ES module entry, loaded through Node's require(esm) on
// Node >= 24. On an older Node, which cannot require an ES module, say what is needed.
'use strict';
const [major] = process.versions.node.split('.').map(Number);
if (!(major >= 24)) throw new Error(`ptc-runtime needs Node >= 24 (found ${process.versions.node})`);
module.exports = require('./index.js');
