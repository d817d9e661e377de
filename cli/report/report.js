// The page script of `ridgeline report`: reads the run's JSON document (the command's own
// --format json output, inlined as #ridgeline-data) and draws its sections with Vega-Lite
// (vegaEmbed, SVG renderer). Every chart's element gets data-rendered="true" once its SVG is
// drawn, and <body> gets data-rendered="N/M" (charts drawn / charts) and data-status="ok" or
// "error" when all are settled: the headless-browser test reads these.
(function () {
  'use strict';
  var doc = JSON.parse(document.getElementById('ridgeline-data').textContent);
  var run = doc.run;
  var main = document.getElementById('report');
  var charts = [];

  function fail(message) {
    var e = document.getElementById('errors');
    e.textContent += message + '\n';
    e.hidden = false;
  }
  function el(tag, text, cls) {
    var n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    if (cls) n.className = cls;
    return n;
  }
  function section(title, note) {
    main.appendChild(el('h2', title));
    if (note) main.appendChild(el('p', note, 'note'));
  }
  function fmt(x) {
    if (typeof x !== 'number') return String(x);
    if (Math.abs(x) >= 1e5 || (Math.abs(x) < 1e-2 && x !== 0)) return x.toExponential(3);
    return x.toFixed(Math.abs(x) >= 100 ? 1 : 3);
  }
  function table(rows) {  // rows: [[label, value], ...]
    var t = el('table');
    rows.forEach(function (r) {
      var tr = el('tr');
      tr.appendChild(el('th', r[0]));
      tr.appendChild(el('td', fmt(r[1]), typeof r[1] === 'number' ? 'num' : ''));
      t.appendChild(tr);
    });
    main.appendChild(t);
  }
  function chart(name, spec) {
    var div = el('div', undefined, 'chart');
    div.id = 'chart-' + name;
    div.dataset.chart = name;
    main.appendChild(div);
    spec.$schema = 'https://vega.github.io/schema/vega-lite/v5.json';
    if (spec.width === undefined && !spec.hconcat) spec.width = 760;
    charts.push(vegaEmbed(div, spec, {renderer: 'svg', actions: false}).then(function () {
      if (div.querySelector('svg')) div.dataset.rendered = 'true';
      else fail('chart ' + name + ': no SVG drawn');
    }, function (err) { fail('chart ' + name + ': ' + err); }));
  }
  function entries(obj, key, value) {
    return Object.keys(obj || {}).map(function (k) {
      var r = {}; r[key] = k; r[value] = obj[k]; return r;
    });
  }
  function bars(name, values, x, y, title, extra) {
    var spec = {data: {values: values}, mark: {type: 'bar', tooltip: true},
                encoding: {x: {field: x, type: 'nominal', sort: null},
                           y: {field: y, type: 'quantitative', title: title}}};
    Object.assign(spec.encoding, extra || {});
    chart(name, spec);
  }

  // A roofline: every kernel at (FLOPs / HBM byte, achieved FLOP/s), under the GPU's roofs.
  function roofline(ops, roofs) {
    var pts = ops.filter(function (o) { return o.flops > 0 && o.bytes.hbm > 0 && o.time_us > 0; })
      .map(function (o) {
        return {name: o.name, layer: o.layer, op: o.op, bottleneck: o.bottleneck,
                intensity: o.flops / o.bytes.hbm, flops_per_s: o.flops / (o.time_us * 1e-6)};
      });
    section('Roofline (' + roofs.gpu + ')', pts.length + ' of ' + ops.length +
            ' kernels placed (kernels with no FLOPs or no HBM traffic have no point); roofs: ' +
            'HBM ' + roofs.hbm_GBps + ' GB/s under the dense BF16, FP8 and FP32 peaks.');
    var lo = 0.01, hi = 1e5, lines = [];
    // The roofs kernels of a transformer step meet: tensor BF16 and FP8, vector FP32.
    Object.keys(roofs.peak_tflops).filter(function (u) {
      return ['bf16', 'fp8', 'fp32'].indexOf(u) >= 0;
    }).forEach(function (unit) {
      var peak = roofs.peak_tflops[unit] * 1e12;
      for (var e = Math.log10(lo); e <= Math.log10(hi) + 1e-9; e += 0.05) {
        var x = Math.pow(10, e);
        lines.push({roof: unit + ' peak / HBM', intensity: x,
                    flops_per_s: Math.min(peak, roofs.hbm_GBps * 1e9 * x)});
      }
    });
    var logx = {field: 'intensity', type: 'quantitative', scale: {type: 'log', domain: [lo, hi]},
                title: 'arithmetic intensity (FLOP / HBM byte)'};
    var logy = {field: 'flops_per_s', type: 'quantitative', scale: {type: 'log'},
                title: 'achieved FLOP/s'};
    chart('roofline', {height: 420, layer: [
      {data: {values: lines}, mark: {type: 'line', strokeDash: [4, 3]},
       encoding: {x: logx, y: logy, detail: {field: 'roof'},
                  color: {field: 'roof', type: 'nominal', legend: {title: 'roof'}}}},
      {data: {values: pts}, mark: {type: 'point', filled: true, tooltip: {content: 'data'}},
       encoding: {x: logx, y: logy, shape: {field: 'bottleneck', type: 'nominal'},
                  color: {field: 'op', type: 'nominal', legend: {title: 'kernel'}}}}],
      resolve: {scale: {color: 'independent'}}});
  }

  function predict() {
    if (run.ops) {
      table([['step', fmt(run.total_us) + ' us'], ['tokens/s', run.tokens_per_s],
             ['kernels', run.kernels], ['FLOPs', run.flops], ['HBM bytes', run.hbm_bytes],
             ['memory (bytes)', run.memory.total_bytes], ['fits', String(run.memory.fits)]]);
      section('Time by bound');
      bars('by-bound', entries(run.time_by_bound_us, 'bound', 'time_us'), 'bound', 'time_us', 'us');
      section('Time by stream', 'kernel time summed per stream (streams overlap)');
      chart('by-stream', {data: {values: run.ops}, mark: {type: 'bar', tooltip: true},
        encoding: {x: {field: 'stream', type: 'nominal'},
                   y: {aggregate: 'sum', field: 'time_us', type: 'quantitative', title: 'us'}}});
      section('Time per layer');
      var layers = run.layers.map(function (l, i) {
        return {n: i, layer: l.section + (l.layer >= 0 ? ' ' + l.layer : ''), time_us: l.time_us};
      });
      bars('per-layer', layers, 'layer', 'time_us', 'us');
      if (doc.roofs) roofline(run.ops, doc.roofs);
    } else {  // a cluster: strategy-level figures, no per-kernel list
      table([['iteration / step', fmt(run.total_us) + ' us'], ['tokens/s', run.tokens_per_s],
             ['MFU', run.mfu], ['bubble fraction', run.bubble_fraction]]);
      section('Time by stream');
      bars('by-stream', entries(run.time_by_stream_us, 'stream', 'time_us'), 'stream', 'time_us', 'us');
      section('Communication per group', 'total and exposed (not hidden behind compute)');
      var comm = entries(run.comm_us, 'group', 'time_us').map(function (r) { r.kind = 'total'; return r; })
        .concat(entries(run.exposed_comm_us, 'group', 'time_us').map(function (r) { r.kind = 'exposed'; return r; }));
      bars('comm', comm, 'group', 'time_us', 'us', {xOffset: {field: 'kind'}, color: {field: 'kind'}});
      section('Roofline', 'a prediction on a cluster has no per-kernel list: run predict on one GPU for the roofline');
    }
  }

  function sweep() {
    var pts = run.points.filter(function (p) { return p.ok; }).map(function (p) {
      var r = Object.assign({}, p.inputs); r.total_us = p.total_us; r.tokens_per_s = p.tokens_per_s;
      r.fits = p.fits; return r;
    });
    var keys = ['batch', 'seq', 'kv_len', 'weights'].filter(function (k) {
      return new Set(pts.map(function (p) { return p[k]; })).size > 1;
    });
    var x = keys.filter(function (k) { return k !== 'weights'; })[0] || 'batch';
    var color = keys.filter(function (k) { return k !== x; })[0];
    table([['points', run.points.length], ['ok', pts.length], ['varying', keys.join(', ') || 'none']]);
    ['tokens_per_s', 'total_us'].forEach(function (y) {
      section(y === 'tokens_per_s' ? 'Tokens/s' : 'Step time (us)');
      var enc = {x: {field: x, type: 'quantitative', scale: {type: 'log', base: 2}},
                 y: {field: y, type: 'quantitative'}, shape: {field: 'fits', type: 'nominal'}};
      if (color) enc.color = {field: color, type: 'nominal'};
      chart('sweep-' + y, {data: {values: pts}, mark: {type: 'line', point: true, tooltip: true},
                           encoding: enc});
    });
  }

  function validate() {
    table([['data set', run.dataset], ['GPU', run.gpu], ['split', run.split],
           ['cases', run.cases.length], ['skipped', (run.skipped || []).length]]);
    section('Predicted against measured', 'each case; the line is exact agreement');
    var lo = Math.min.apply(null, run.cases.map(function (c) { return c.measured_us; }));
    var hi = Math.max.apply(null, run.cases.map(function (c) { return c.measured_us; }));
    var log = function (f, t) { return {field: f, type: 'quantitative', scale: {type: 'log'}, title: t}; };
    chart('predicted-measured', {height: 420, layer: [
      {data: {values: [{measured_us: lo, predicted_us: lo}, {measured_us: hi, predicted_us: hi}]},
       mark: {type: 'line', color: '#999'},
       encoding: {x: log('measured_us', 'measured us'), y: log('predicted_us', 'predicted us')}},
      {data: {values: run.cases}, mark: {type: 'point', tooltip: {content: 'data'}},
       encoding: {x: log('measured_us', 'measured us'), y: log('predicted_us', 'predicted us'),
                  color: {field: 'family', type: 'nominal'}}}]});
    section('Error against measured time', 'predicted / measured - 1, each case (as validate --plot draws it)');
    chart('error-measured', {height: 300, data: {values: run.cases},
      transform: [{calculate: 'datum.predicted_us / datum.measured_us - 1', as: 'error'}],
      mark: {type: 'point', tooltip: {content: 'data'}},
      encoding: {x: log('measured_us', 'measured us'),
                 y: {field: 'error', type: 'quantitative', axis: {format: '%'}, title: 'error'},
                 color: {field: 'family', type: 'nominal'}}});
    section('Error per family (MAPE)', 'ridgeline against a plain datasheet roofline');
    var fam = [];
    Object.keys(run.families).forEach(function (f) {
      ['ridgeline', 'roofline'].forEach(function (m) {
        fam.push({family: f, model: m, mape: run.families[f][m].mape});
      });
    });
    bars('family-mape', fam, 'family', 'mape', 'MAPE', {xOffset: {field: 'model'}, color: {field: 'model'}});
  }

  function search() {
    var rows = run.ranked.map(function (r, i) {
      return {rank: i + 1, strategy: r.strategy.text, total_us: r.total_us, mfu: r.mfu,
              tokens_per_s: r.tokens_per_s, compute_us: r.time_by_stream_us.compute,
              comm_us: r.time_by_stream_us.comm, exposed_comm_us: Object.values(r.exposed_comm_us)
                .reduce(function (a, b) { return a + b; }, 0)};
    });
    table([['cluster', run.cluster], ['GPUs', run.gpus], ['global batch', run.global_batch],
           ['enumerated', run.counts.enumerated], ['valid', run.counts.valid],
           ['not fitting', run.counts.not_fitting], ['ranked (shown)', rows.length]]);
    section('Strategies: iteration time', 'best first');
    chart('search-time', {data: {values: rows}, mark: {type: 'bar', tooltip: {content: 'data'}},
      encoding: {y: {field: 'strategy', type: 'nominal', sort: null},
                 x: {field: 'total_us', type: 'quantitative', title: 'us per iteration'}}});
    section('Strategies: MFU and exposed communication');
    chart('search-mfu', {hconcat: [
      {width: 360, data: {values: rows}, mark: {type: 'bar', tooltip: true},
       encoding: {y: {field: 'strategy', type: 'nominal', sort: null}, x: {field: 'mfu', type: 'quantitative'}}},
      {width: 200, data: {values: rows}, mark: {type: 'bar', tooltip: true, color: '#d62728'},
       encoding: {y: {field: 'strategy', type: 'nominal', sort: null, axis: null},
                  x: {field: 'exposed_comm_us', type: 'quantitative', title: 'exposed comm us'}}}]});
  }

  function serve() {
    table([['engine', run.engine], ['arrivals', run.arrivals], ['workload', run.workload],
           ['requests/s', run.throughput.requests_per_s],
           ['output tokens/s', run.throughput.output_tokens_per_s],
           ['TTFT p50 / p99 ms', fmt(run.ttft_ms.p50) + ' / ' + fmt(run.ttft_ms.p99)],
           ['TPOT p50 / p99 ms', fmt(run.tpot_ms.p50) + ' / ' + fmt(run.tpot_ms.p99)],
           ['preemptions', run.preemptions]]);
    section('Latency percentiles', 'each request, as a cumulative distribution');
    var values = [];
    run.requests.forEach(function (r) {
      ['ttft_ms', 'tpot_ms', 'e2e_ms', 'queue_ms'].forEach(function (m) {
        if (typeof r[m] === 'number') values.push({metric: m, ms: r[m]});
      });
    });
    chart('latency-cdf', {data: {values: values},
      transform: [{window: [{op: 'cume_dist', as: 'fraction'}], sort: [{field: 'ms'}],
                   groupby: ['metric']}],
      facet: {field: 'metric', type: 'nominal', columns: 2},
      spec: {width: 340, height: 180, mark: {type: 'line', interpolate: 'step-after'},
             encoding: {x: {field: 'ms', type: 'quantitative'},
                        y: {field: 'fraction', type: 'quantitative', title: 'fraction of requests'}}},
      resolve: {scale: {x: 'independent'}}, width: undefined});
    section('p50 / p90 / p99');
    var pct = [];
    ['ttft_ms', 'tpot_ms', 'itl_ms', 'e2e_ms'].forEach(function (m) {
      ['p50', 'p90', 'p99'].forEach(function (p) { pct.push({metric: m, percentile: p, ms: run[m][p]}); });
    });
    chart('percentiles', {data: {values: pct}, mark: {type: 'bar', tooltip: true},
      facet: {field: 'metric', type: 'nominal', columns: 4},
      spec: {width: 150, mark: {type: 'bar', tooltip: true},
             encoding: {x: {field: 'percentile', type: 'nominal'}, y: {field: 'ms', type: 'quantitative'}}},
      resolve: {scale: {y: 'independent'}}});
  }

  function accuracy() {
    var rows = doc.accuracy || [];
    section('Accuracy of the categories involved',
            'held-out MAPE from the committed validation baselines (validate/accuracy_baseline*.json)');
    if (!rows.length) { main.appendChild(el('p', 'no baseline covers these categories', 'note')); return; }
    chart('accuracy', {data: {values: rows}, mark: {type: 'bar', tooltip: {content: 'data'}},
      encoding: {y: {field: 'category', type: 'nominal', sort: null},
                 yOffset: {field: 'gpu'}, color: {field: 'gpu', type: 'nominal'},
                 x: {field: 'holdout_mape', type: 'quantitative', title: 'held-out MAPE',
                     axis: {format: '%'}},
                 row: {field: 'level', type: 'nominal', title: null}},
      resolve: {scale: {y: 'independent'}}});
  }

  try {
    ({predict: predict, sweep: sweep, validate: validate, search: search, serve: serve})[doc.kind]();
    accuracy();
  } catch (e) {
    fail('report: ' + e);
  }
  Promise.allSettled(charts).then(function () {
    var drawn = document.querySelectorAll('.chart[data-rendered="true"]').length;
    document.body.dataset.rendered = drawn + '/' + charts.length;
    document.body.dataset.status =
        drawn === charts.length && document.getElementById('errors').hidden ? 'ok' : 'error';
  });
})();
