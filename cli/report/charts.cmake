# The chart libraries of `ridgeline report` (Vega 5, Vega-Lite 5, vega-embed), vendored at build
# time: `npm ci` installs the versions package-lock.json pins into the build dir (node_modules is
# never committed), and chart_assets.cpp embeds their minified JS into the binary with .incbin,
# so a report is one self-contained HTML file that opens offline. Without npm the report target
# is skipped and `ridgeline report` says it was built without charts.
set(report_dir ${CMAKE_CURRENT_SOURCE_DIR}/report)
find_program(RIDGELINE_NPM npm)
if(RIDGELINE_NPM)
  set(js_dir ${CMAKE_CURRENT_BINARY_DIR}/report_js)
  set(js_stamp ${js_dir}/npm-ci.stamp)
  # npm keeps the tarballs' old mtimes, so the stamp (not the JS) says when npm ci last ran.
  add_custom_command(OUTPUT ${js_stamp}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${js_dir}
    COMMAND ${CMAKE_COMMAND} -E copy ${report_dir}/package.json ${report_dir}/package-lock.json ${js_dir}
    COMMAND ${RIDGELINE_NPM} ci --prefix ${js_dir} --ignore-scripts --no-audit --no-fund --loglevel=error
    COMMAND ${CMAKE_COMMAND} -E touch ${js_stamp}
    DEPENDS ${report_dir}/package.json ${report_dir}/package-lock.json
    COMMENT "npm ci: vendoring Vega, Vega-Lite and vega-embed for ridgeline report")
  add_custom_target(ridgeline_report_charts DEPENDS ${js_stamp})
  add_dependencies(ridgeline_cli ridgeline_report_charts)
  target_sources(ridgeline_cli PRIVATE report/chart_assets.cpp)
  set(js_modules ${js_dir}/node_modules)
  set_source_files_properties(report/chart_assets.cpp PROPERTIES
    OBJECT_DEPENDS "${js_stamp};${report_dir}/report.js;${report_dir}/report.css"
    COMPILE_DEFINITIONS "RIDGELINE_VEGA_JS=\"${js_modules}/vega/build/vega.min.js\";RIDGELINE_VEGA_LITE_JS=\"${js_modules}/vega-lite/build/vega-lite.min.js\";RIDGELINE_VEGA_EMBED_JS=\"${js_modules}/vega-embed/build/vega-embed.min.js\";RIDGELINE_REPORT_JS=\"${report_dir}/report.js\";RIDGELINE_REPORT_CSS=\"${report_dir}/report.css\"")
  message(STATUS "ridgeline report: charts from npm (${RIDGELINE_NPM}), vendored at build time")
else()
  target_sources(ridgeline_cli PRIVATE report/no_chart_assets.cpp)
  message(STATUS "npm not found: the report charts target is skipped; `ridgeline report` will "
                 "say it was built without charts (install npm, e.g. Debian's npm, and reconfigure)")
endif()
