'use strict';
const { sum } = require('../src/util/math.js');
const helpers = require('./helpers');
const fee = require('./helpers').fee;

function Legacy(items) {
  this.items = items;
}

Legacy.prototype.total = function () {
  return fee(sum(this.items) + helpers.tax(1));
};

Legacy.create = function (items) {
  return new Legacy(items);
};

module.exports = Legacy;
