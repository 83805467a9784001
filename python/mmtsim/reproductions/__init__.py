"""The reproductions of the seed papers' studies that ``mmtsim reproduce`` runs
(the driver is :mod:`mmtsim.reproduce`).

This package holds, besides the scenario files each study sweeps over
(``xtcp-outage.toml``, ``xtcp-random.toml``: Table I of seed 000 as defaults;
``mmcptp-trace.toml``, ``mmcptp-rtt.toml``: seed 004's trace-driven topologies, with their
channel-rate traces in ``traces/``; one ``<study>.toml`` for each other study):

- :mod:`.paper`: the published numbers the studies are compared with;
- :mod:`.common`: what every study is made of (:class:`~.common.Reproduction`,
  :class:`~.common.Finding`) and the helpers their analyses share;
- :mod:`.xtcp_outage`, :mod:`.xtcp_random`: one study each, its sweep design, its analysis
  (findings, tables, numbers) and its figures;
- :mod:`.mmcptp_nr`: seed 004's NR/LTE studies (``mmcptp-nr-single``, ``mmcptp-nr-multi``,
  scenarios ``mmcptp-nr-single.toml``, ``mmcptp-nr-multi.toml``);
- :mod:`.mmcptp_trace`: seed 004's two trace-driven studies (``mmcptp-trace``,
  ``mmcptp-rtt``), and :mod:`.mmcptp_traces`, the generator of their traces from mmtsim's
  channel model;
- :mod:`.mateo_blockage`: seed 002's Sec. III-A (``mateo-buffer``, ``mateo-blockage``);
  :mod:`.mateo_street`: its street (``mateo-handover``) and the helpers its two multi-AP
  studies share; :mod:`.mateo_square`: its square (``mateo-square``);
- :mod:`.zhang_train`, :mod:`.zhang_lte`: seed 003's train with dual connectivity
  (``zhang-train``) and its LTE-only twin (``zhang-lte``); :mod:`.zhang_urban`: its dense
  urban cell (``zhang-urban``);
- :mod:`.measured_5g`: every congestion control over the shipped measured 5G traces
  (``measured-5g``);
- :mod:`.report`: a finished reproduction's HTML report.
"""
