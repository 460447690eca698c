exports.twice = (x) => x * 2;
