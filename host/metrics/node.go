package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// SetNode labels every series this server exposes with node="name" (cluster
// mode: the nodes of one cluster export the same series, and a dashboard
// that sums them needs to tell them apart even behind one scrape address).
// Call it before serving the metrics.
func (m *Metrics) SetNode(name string) { m.node = name }

// gatherer is the registry, with the node label when SetNode gave one.
func (m *Metrics) gatherer() prometheus.Gatherer {
	if m.node == "" {
		return m.Registry
	}
	return nodeGatherer{g: m.Registry, label: &dto.LabelPair{Name: proto.String("node"), Value: proto.String(m.node)}}
}

type nodeGatherer struct {
	g     prometheus.Gatherer
	label *dto.LabelPair
}

func (n nodeGatherer) Gather() ([]*dto.MetricFamily, error) {
	mfs, err := n.g.Gather()
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			m.Label = append(m.Label, n.label)
		}
	}
	return mfs, err
}

// ClusterStats are the figures of cluster mode (package host/cluster).
type ClusterStats struct {
	Members int
	// Forwarded counts requests this node sent to their account's node
	// (itself included); ForwardFailed those that got no answer;
	// ServedForOthers the forwarded requests this node served.
	Forwarded, ForwardFailed, ServedForOthers int64
	// ServedLocally counts requests served on this node because their
	// account's node could not be reached.
	ServedLocally int64
	// TransientChanges counts changes this node ran on accounts homed on
	// another node (transient activations), applied or refused.
	TransientChanges int64
}

var (
	descMembers       = prometheus.NewDesc(Namespace+"_cluster_members", "Members of the cluster this node sees, itself included.", nil, nil)
	descForwarded     = prometheus.NewDesc(Namespace+"_cluster_forwarded_total", "Requests sent to their account's node (this one included).", nil, nil)
	descForwardFailed = prometheus.NewDesc(Namespace+"_cluster_forward_failed_total", "Requests no node served before their deadline, or whose node did not answer.", nil, nil)
	descServedHere    = prometheus.NewDesc(Namespace+"_cluster_served_total", "Forwarded requests this node served as their account's node.", nil, nil)
	descServedLocally = prometheus.NewDesc(Namespace+"_cluster_served_unreachable_total", "Requests served on this node because their account's node could not be reached.", nil, nil)
	descTransient     = prometheus.NewDesc(Namespace+"_cluster_transient_changes_total", "Changes this node ran (applied or refused) on accounts homed on another node, in transient activations that fence the home's.", nil, nil)
)

// WatchCluster registers the cluster's figures, read from f at each scrape.
func (m *Metrics) WatchCluster(f func() ClusterStats) {
	m.Registry.MustRegister(clusterCollector(f))
}

type clusterCollector func() ClusterStats

func (c clusterCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descMembers
	ch <- descForwarded
	ch <- descForwardFailed
	ch <- descServedHere
	ch <- descServedLocally
	ch <- descTransient
}

func (c clusterCollector) Collect(ch chan<- prometheus.Metric) {
	s := c()
	ch <- prometheus.MustNewConstMetric(descMembers, prometheus.GaugeValue, float64(s.Members))
	ch <- prometheus.MustNewConstMetric(descForwarded, prometheus.CounterValue, float64(s.Forwarded))
	ch <- prometheus.MustNewConstMetric(descForwardFailed, prometheus.CounterValue, float64(s.ForwardFailed))
	ch <- prometheus.MustNewConstMetric(descServedHere, prometheus.CounterValue, float64(s.ServedForOthers))
	ch <- prometheus.MustNewConstMetric(descServedLocally, prometheus.CounterValue, float64(s.ServedLocally))
	ch <- prometheus.MustNewConstMetric(descTransient, prometheus.CounterValue, float64(s.TransientChanges))
}
