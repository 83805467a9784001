"""The reproductions of the seed papers' studies that ``mmtsim reproduce`` runs
(the driver is :mod:`mmtsim.reproduce`).

This package holds, besides the scenario files each study sweeps over
(``xtcp-outage.toml``, ``xtcp-random.toml``: Table I of seed 000 as defaults):

- :mod:`.paper`: the published numbers the studies are compared with;
- :mod:`.common`: what every study is made of (:class:`~.common.Reproduction`,
  :class:`~.common.Finding`) and the helpers their analyses share;
- :mod:`.xtcp_outage`, :mod:`.xtcp_random`: one study each, its sweep design, its analysis
  (findings, tables, numbers) and its figures;
- :mod:`.mmcptp_nr`: seed 004's NR/LTE studies (``mmcptp-nr-single``, ``mmcptp-nr-multi``,
  scenarios ``mmcptp-nr-single.toml``, ``mmcptp-nr-multi.toml``);
- :mod:`.report`: a finished reproduction's HTML report.
"""
